// SPDX-License-Identifier: MIT
// kernelsieve-cli redundancy: runs the redundancy analysis (ks/core/redundancy.h) over a suite,
// prints each task's redundant nodes and the share of FLOPs they take, and writes JSON.

#include "cli_redundancy.h"
#include "cli_common.h"

#include "ks/core/analysisreports.h"
#include "ks/core/redundancy.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {
namespace {

enum Exit { Ok = 0, BadSuite = 3, BadDevice = 4, WriteFailed = 5 };

struct RedundancyCliOptions {
    std::string suite = "builtin", tasks, device = "auto", preset, out;
    int seeds = 3;
    double rtol = RedundancyOptions{}.rtol, atol = RedundancyOptions{}.atol;
};

// "812 check runs, 790 from a cut, 812 node by node, ": how the ablation's checks ran
// (docs/redundancy.md).
std::string checkRunsText(const RedundancyReport& r) {
    if (r.checkRuns == 0) return "";
    return std::to_string(r.checkRuns) + " check runs, " + std::to_string(r.checkRunsFromCut) + " from a cut, " +
           std::to_string(r.checkRunsByNode) + " node by node, ";
}

int runRedundancy(const RedundancyCliOptions& o) {
    Suite s;
    try {
        s = loadSuite(o.suite);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::BadSuite;
    }
    for (const auto& issue : s.issues) std::cerr << "warning: " << issue.message << "\n";
    const auto tasks = selectTasks(s, o.tasks);
    if (tasks.empty()) {
        std::cerr << "error: no task in suite '" << o.suite << "'"
                  << (o.tasks.empty() ? "" : " matches --tasks '" + o.tasks + "'") << "\n";
        return Exit::BadSuite;
    }
    RedundancyOptions opt;
    opt.device = o.device;
    opt.seeds = o.seeds;
    opt.rtol = o.rtol;
    opt.atol = o.atol;
    if (!o.preset.empty()) opt.preset = parsePreset(o.preset);

    std::vector<RedundancyReport> reports;
    int failed = 0;
    for (size_t i = 0; i < tasks.size(); ++i) {
        RedundancyReport r;
        try {
            r = analyzeRedundancy(tasks[i], opt);
        } catch (const Error& e) { // the device request itself is wrong: no task can run
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadDevice;
        }
        if (!r.error.empty()) {
            ++failed;
            std::printf("%-8s %-44.44s ERROR %s\n", r.taskId.c_str(), r.taskName.c_str(), r.error.c_str());
        } else if (!r.hasRedundancy()) {
            std::printf("%-8s %-44.44s no redundancy (%d ops tried, %s%.2fs)\n", r.taskId.c_str(), r.taskName.c_str(),
                        r.opsExamined, checkRunsText(r).c_str(), r.wallSeconds);
        } else {
            std::printf("%-8s %-44.44s REDUNDANT: %.1f%% of FLOPs (%d ops tried, %s%.2fs)\n", r.taskId.c_str(),
                        r.taskName.c_str(), 100.0 * r.flopFraction(), r.opsExamined, checkRunsText(r).c_str(),
                        r.wallSeconds);
            for (const auto& n : r.nodes)
                std::printf("    %-15s %-20s line %-3d %s\n      -> %s\n", redundantKindName(n.kind), n.op.c_str(), n.line,
                            n.sourceText.c_str(), n.reason.c_str());
            for (const auto& u : r.unused)
                std::printf("    %-15s %-20s %s\n", "unused-arg", ((u.isParam ? "param " : "input ") + u.name).c_str(),
                            u.reason.c_str());
        }
        std::fflush(stdout);
        reports.push_back(std::move(r));
    }
    if (!o.out.empty()) {
        try {
            writeFileAtomic(o.out, redundancyReportsToJson(reports, opt));
            std::cerr << "results in " << o.out << "\n";
        } catch (const Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::WriteFailed;
        }
    }
    return failed == 0 ? Exit::Ok : Exit::BadSuite;
}

} // namespace

void addRedundancyCommand(CLI::App& app, std::function<int()>& action) {
    auto o = std::make_shared<RedundancyCliOptions>();
    auto* sc = app.add_subcommand("redundancy", "Find redundant computation (dead and no-effect ops) in task graphs");
    sc->add_option("--suite", o->suite, "'builtin' or a suite folder")->capture_default_str();
    sc->add_option("--tasks", o->tasks, "Only tasks whose id or name matches (globs, comma-separated)");
    sc->add_option("--device", o->device, "auto|cuda|cpu")->capture_default_str()
        ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
    sc->add_option("--preset", o->preset, "Shapes: small|full (default: full on CUDA, small on CPU)")
        ->check(CLI::IsMember({"small", "full"}));
    sc->add_option("--seeds", o->seeds, "Random seeds per check (plus one all-zero input)")
        ->capture_default_str()->check(CLI::PositiveNumber);
    sc->add_option("--rtol", o->rtol, "Relative tolerance for 'output unchanged'")->capture_default_str()
        ->check(finiteNonNegative());
    sc->add_option("--atol", o->atol, "Absolute tolerance for 'output unchanged'")->capture_default_str()
        ->check(finiteNonNegative());
    sc->add_option("--out", o->out, "Also write the reports as JSON");
    sc->callback([o, &action] { action = [o] { return runRedundancy(*o); }; });
}

} // namespace ks::cli
