// SPDX-License-Identifier: MIT
// kernelsieve-cli diff: reads two results files, judges each by its own thresholds (or by
// --profile / --threshold for both, --b-profile / --b-threshold for B alone) and prints what
// ks::diffResults finds; --csv writes every task of either file with flags A/B and deltas.
// More than one B (issue 14: a baseline against several runs, as the workbench's compare view):
// A against each in turn, the same report per pair, then which tasks differ from A in some file;
// --csv then writes one file per pair (ab.csv -> ab-B1.csv, ab-B2.csv, ...).

#include "cli_diff.h"

#include "ks/core/criteria.h"
#include "ks/core/results.h"
#include "ks/core/resultsdiff.h"
#include "ks/core/taskspec.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

namespace ks::cli {
namespace {

enum Exit { Same = 0, Differ = 1, Usage = 2, Unreadable = 3, WriteFailed = 5 };

struct DiffOptions {
    std::string a, csv, profile, bProfile;
    std::vector<std::string> b; // one or more
    std::vector<std::string> thresholds, bThresholds;
};

// "ab.csv" -> "ab-B2.csv": one CSV per pair when A is compared with several files.
std::string pairCsvPath(const std::string& csv, size_t k) {
    const std::filesystem::path p(csv);
    return (p.parent_path() /
            (p.stem().string() + "-B" + std::to_string(k + 1) + p.extension().string()))
        .string();
}

// The file's own thresholds unless a profile replaces them; then the overrides, one by one.
Thresholds judgedBy(const Thresholds& stored, const std::string& profile,
                    const std::vector<std::string>& overrides, const char* option) {
    Thresholds t = stored;
    if (!profile.empty()) {
        if (auto p = builtinProfile(profile)) {
            t = *p;
        } else if (std::filesystem::exists(profile)) {
            t = parseProfile(readFile(profile), profile);
        } else {
            std::string names;
            for (const auto& n : builtinProfileNames())
                names += (names.empty() ? "" : ", ") + n;
            throw Error(std::string(option) + " '" + profile + "' is neither a built-in profile (" +
                        names + ") nor a readable profile file");
        }
    }
    for (const auto& o : overrides)
        applyThresholdOverride(t, o);
    return t;
}

int runDiff(const DiffOptions& o) {
    RunResults a;
    std::vector<RunResults> bs(o.b.size());
    try {
        a = resultsFromJson(readFile(o.a), o.a);
        for (size_t k = 0; k < o.b.size(); ++k)
            bs[k] = resultsFromJson(readFile(o.b[k]), o.b[k]);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Unreadable;
    }
    Thresholds ta;
    std::vector<Thresholds> tbs;
    try {
        ta = judgedBy(a.thresholds, o.profile, o.thresholds, "--profile");
        for (const auto& b : bs) {
            const Thresholds tb = judgedBy(b.thresholds, o.profile, o.thresholds, "--profile");
            tbs.push_back(judgedBy(tb, o.bProfile, o.bThresholds, "--b-profile"));
        }
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Usage;
    }
    const bool several = bs.size() > 1;
    bool anyDiffers = false;
    std::set<std::string> differing; // tasks whose flags differ from A's in some file
    std::vector<std::string> perFile;
    for (size_t k = 0; k < bs.size(); ++k) {
        const ResultsDiff d = diffResults(a, ta, bs[k], tbs[k]);
        anyDiffers = anyDiffers || d.anyDiffers();
        for (const auto& t : d.tasks)
            if (t.differs()) differing.insert(t.id);
        if (several)
            std::cout << (k ? "\n" : "") << "=== A against B" << k + 1 << " (" << o.b[k]
                      << ") ===\n";
        std::cout << resultsDiffToText(d, a, ta, o.a, bs[k], tbs[k], o.b[k]) << std::flush;
        perFile.push_back("B" + std::to_string(k + 1) + " " + o.b[k] + ": " +
                          std::to_string(d.differingTasks) + " of " +
                          std::to_string(d.tasks.size()) + " tasks differ in a flag");
        if (!o.csv.empty()) {
            const std::string path = several ? pairCsvPath(o.csv, k) : o.csv;
            try {
                writeFileAtomic(path, resultsDiffToCsv(d, a, bs[k]));
                std::cerr << "CSV (" << d.tasks.size() << " tasks) in " << path << "\n";
            } catch (const Error& e) {
                std::cerr << "error: " << e.what() << "\n";
                return Exit::WriteFailed;
            }
        }
    }
    if (several) {
        std::cout << "\n=== A (" << o.a << ") against " << bs.size() << " files ===\n";
        for (const auto& line : perFile)
            std::cout << "  " << line << "\n";
        std::cout << differing.size() << (differing.size() == 1 ? " task differs" : " tasks differ")
                  << " from A in a flag in some file" << (differing.empty() ? "." : ":") << "\n";
        std::string ids;
        for (const auto& id : differing)
            ids += (ids.empty() ? "  " : ", ") + id;
        if (!ids.empty()) std::cout << ids << "\n";
    }
    return anyDiffers ? Exit::Differ : Exit::Same;
}

} // namespace

void addDiffCommand(CLI::App& app, std::function<int()>& action) {
    auto o = std::make_shared<DiffOptions>();
    auto* sc = app.add_subcommand("diff", "Compare two results files (or A with several): the "
                                          "tasks whose flags differ, with the metric deltas (exit "
                                          "1 if any)");
    sc->add_option("A", o->a, "The first results file")->required();
    sc->add_option("B", o->b,
                   "The second results file; several: A against each, then the tasks that "
                   "differ from A in some file")
        ->required()
        ->expected(1, -1);
    sc->add_option("--csv", o->csv,
                   "Also write every task of either file (flags A/B, metrics, deltas) as CSV; "
                   "with several B files one CSV per pair (FILE-B1.csv, FILE-B2.csv, ...)");
    sc->add_option("--profile", o->profile,
                   "Judge both files by this profile (a built-in name or a profile file; default: "
                   "each file's own)");
    sc->add_option("--threshold", o->thresholds,
                   "Override one threshold on both sides, NAME=VALUE (repeatable)");
    sc->add_option("--b-profile", o->bProfile,
                   "Judge B by this profile (compare two profiles on one file)");
    sc->add_option("--b-threshold", o->bThresholds,
                   "Override one threshold of B, NAME=VALUE (repeatable)");
    sc->callback([o, &action] { action = [o] { return runDiff(*o); }; });
}

} // namespace ks::cli
