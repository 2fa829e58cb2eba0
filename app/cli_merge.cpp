// SPDX-License-Identifier: MIT
#include "cli_merge.h"

#include "ks/core/results.h"
#include "ks/core/resultsfile.h"
#include "ks/core/resultsmerge.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace ks::cli {
namespace {

struct MergeArgs {
    std::vector<std::string> files;
    std::string out, csv;
    bool force = false, allowMissing = false, allowDevices = false;
};

enum Exit { Ok = 0, Usage = 2, BadInput = 3, WriteFailed = 5 };

int runMerge(const MergeArgs& a) {
    std::vector<ResultsPart> parts;
    for (const auto& f : a.files) {
        try {
            parts.push_back({f, resultsFromJson(readFile(f), f)});
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadInput;
        }
    }
    RunResults merged;
    try {
        merged = mergeResults(parts, {a.allowMissing, a.allowDevices});
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::BadInput;
    }
    // The merged file goes through the same sink as a run: lock, another run's file kept, .bak.
    try {
        ResultsSink sink(a.out, {a.force, false});
        std::vector<std::string> ids;
        for (const auto& t : merged.tasks) ids.push_back(t.id);
        sink.begin(merged.run, merged.thresholds, ids);
        if (!sink.note().empty()) std::cerr << "note: " << sink.note() << "\n";
        sink.finish(merged);
        if (!a.csv.empty()) writeFileAtomic(a.csv, resultsToCsv(merged, merged.thresholds));
        std::cerr << "merged " << parts.size() << " files, " << merged.tasks.size() << " tasks"
                  << (merged.run.cancelled ? " (incomplete: a part was cancelled or a shard is missing)" : "")
                  << " -> " << sink.path() << (a.csv.empty() ? "" : ", CSV " + a.csv) << "\n";
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::WriteFailed;
    }
    return Exit::Ok;
}

} // namespace

void addMergeCommand(CLI::App& app, std::function<int()>& action) {
    auto a = std::make_shared<MergeArgs>();
    auto* sc = app.add_subcommand("merge",
                                  "Join the results files of filter --shard K/N runs (or task selections of one suite) "
                                  "into one, in the order one run would have written");
    sc->add_option("FILES", a->files, "Results files (kernelsieve.results)")->required()->expected(1, -1);
    sc->add_option("--out", a->out, "The merged results file")->required();
    sc->add_option("--csv", a->csv, "Also write the filter table as CSV");
    sc->add_flag("--force", a->force, "Replace --out even when it holds another run");
    sc->add_flag("--allow-missing", a->allowMissing, "Merge although some shard's file is missing (marked incomplete)");
    sc->add_flag("--allow-devices", a->allowDevices, "Merge parts measured on different device models");
    sc->callback([&action, a] { action = [a] { return runMerge(*a); }; });
}

} // namespace ks::cli
