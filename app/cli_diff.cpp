// SPDX-License-Identifier: MIT
// kernelsieve-cli diff: reads two results files, judges each by its own thresholds (or by
// --profile / --threshold for both, --b-profile / --b-threshold for B alone) and prints what
// ks::diffResults finds; --csv writes every task of either file with flags A/B and deltas.

#include "cli_diff.h"

#include "ks/core/criteria.h"
#include "ks/core/results.h"
#include "ks/core/resultsdiff.h"
#include "ks/core/taskspec.h"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

namespace ks::cli {
namespace {

enum Exit { Same = 0, Differ = 1, Usage = 2, Unreadable = 3, WriteFailed = 5 };

struct DiffOptions {
    std::string a, b, csv, profile, bProfile;
    std::vector<std::string> thresholds, bThresholds;
};

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
    RunResults a, b;
    try {
        a = resultsFromJson(readFile(o.a), o.a);
        b = resultsFromJson(readFile(o.b), o.b);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Unreadable;
    }
    Thresholds ta, tb;
    try {
        ta = judgedBy(a.thresholds, o.profile, o.thresholds, "--profile");
        tb = judgedBy(b.thresholds, o.profile, o.thresholds, "--profile");
        tb = judgedBy(tb, o.bProfile, o.bThresholds, "--b-profile");
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Usage;
    }
    const ResultsDiff d = diffResults(a, ta, b, tb);
    std::cout << resultsDiffToText(d, a, ta, o.a, b, tb, o.b) << std::flush;
    if (!o.csv.empty()) {
        try {
            writeFileAtomic(o.csv, resultsDiffToCsv(d, a, b));
            std::cerr << "CSV (" << d.tasks.size() << " tasks) in " << o.csv << "\n";
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::WriteFailed;
        }
    }
    return d.anyDiffers() ? Exit::Differ : Exit::Same;
}

} // namespace

void addDiffCommand(CLI::App& app, std::function<int()>& action) {
    auto o = std::make_shared<DiffOptions>();
    auto* sc = app.add_subcommand("diff", "Compare two results files: the tasks whose flags "
                                          "differ, with the metric deltas (exit 1 if any)");
    sc->add_option("A", o->a, "The first results file")->required();
    sc->add_option("B", o->b, "The second results file")->required();
    sc->add_option("--csv", o->csv,
                   "Also write every task of either file (flags A/B, metrics, deltas) as CSV");
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
