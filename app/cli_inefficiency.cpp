// SPDX-License-Identifier: MIT
// kernelsieve-cli inefficiency: measures the device's ceilings (cached), then for each task its
// roofline efficiency and every rewrite rule that fires, run, checked equal and timed.

#include "cli_inefficiency.h"

#include "ks/core/engine.h"
#include "ks/core/inefficiency.h"
#include "ks/core/suite.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

namespace ks::cli {
namespace {

enum Exit { Ok = 0, Usage = 2, BadSuite = 3, BadDevice = 4, WriteFailed = 5 };

struct Options {
    std::string suite = "builtin", tasks, device = "auto", preset, out;
    InefficiencyOptions analysis;
    bool remeasure = false;
};

int run(const Options& o) {
    Suite s;
    try {
        s = loadSuite(o.suite);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return BadSuite;
    }
    for (const auto& issue : s.issues) std::cerr << "warning: " << issue.message << "\n";
    const auto tasks = selectTasks(s, o.tasks);
    if (tasks.empty()) {
        std::cerr << "error: no task of suite '" << s.name << "' matches '" << o.tasks << "'\n";
        return BadSuite;
    }
    InefficiencyOptions opt = o.analysis;
    opt.device = o.device;
    if (!o.preset.empty()) opt.preset = parsePreset(o.preset);
    DeviceCeilings ceil;
    try {
        std::cerr << "device ceilings (copy bandwidth, FP32 peak)...\n";
        ceil = deviceCeilings(o.device, o.remeasure);
    } catch (const Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return BadDevice;
    }
    const bool cpu = ceil.device == "cpu";
    std::printf("device %s (%s): copy %.1f GB/s, FP32 %.1f GFLOP/s [%s]%s\n", ceil.device.c_str(),
                ceil.deviceName.c_str(), ceil.copyBandwidthGBs, ceil.fp32PeakGflops, ceil.source.c_str(),
                cpu ? "  -- timings are CPU timings" : "");
    std::printf("%-10s %10s %10s %8s %7s %9s  %-22s %s\n", "task", cpu ? "eager(CPU)" : "eager", "floor", "effic.",
                "passes", "best", "rule", "flag");
    std::vector<InefficiencyReport> reports;
    int errors = 0;
    for (const auto& t : tasks) {
        InefficiencyReport r = analyseInefficiency(t, opt, ceil);
        if (!r.error.empty()) {
            ++errors;
            std::printf("%-10s error: %s\n", t.id.c_str(), r.error.c_str());
        } else {
            std::string flag = r.flaggedRewrite ? "rewrite" : "";
            if (r.flaggedEfficiency) flag += flag.empty() ? "efficiency" : "+efficiency";
            if (r.flaggedPasses) flag += flag.empty() ? "passes" : "+passes";
            std::printf("%-10s %8.3fms %8.3fms %8.4f %7.2f %8.2fx  %-22s %s\n", t.id.c_str(), r.eagerMs, r.floorMs,
                        r.efficiency, r.passes, r.bestSpeedup, r.bestRule.empty() ? "-" : r.bestRule.c_str(),
                        flag.empty() ? "-" : flag.c_str());
            if (r.graphMs > 0)
                std::printf("           graph replay %.3fms: host dispatch %.3fms of the eager time\n", r.graphMs,
                            r.dispatchMs());
            if (r.hostSyncs > 0)
                std::printf("           the eager forward waits for the GPU %d time(s)\n", r.hostSyncs);
            for (const auto& rr : r.rewrites)
                std::printf("           %s line %d: %s%s\n", rr.rule.c_str(), rr.line,
                            !rr.implemented ? "detected, no rewrite"
                            : rr.equal      ? ("equal, " + std::to_string(rr.speedup) + "x").c_str()
                                            : ("NOT equal " + rr.error).c_str(),
                            "");
        }
        std::fflush(stdout);
        reports.push_back(std::move(r));
    }
    if (!o.out.empty()) {
        std::ofstream f(o.out);
        f << inefficiencyToJson(reports, ceil, opt) << "\n";
        if (!f) {
            std::cerr << "error: cannot write " << o.out << "\n";
            return WriteFailed;
        }
    }
    return Ok;
}

} // namespace

void addInefficiencyCommand(CLI::App& app, std::function<int()>& action) {
    auto opts = std::make_shared<Options>();
    auto* sc = app.add_subcommand("inefficiency",
                                  "Filter 5: baseline roofline efficiency and measured rewrite rules per task");
    sc->add_option("--suite", opts->suite, "'builtin' or a suite folder")->capture_default_str();
    sc->add_option("--tasks", opts->tasks, "Only tasks whose id or name matches (globs, comma-separated)");
    sc->add_option("--device", opts->device, "auto|cuda|cpu")->capture_default_str()
        ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
    sc->add_option("--preset", opts->preset, "Shapes: small|full (default: full on CUDA, small on CPU)")
        ->check(CLI::IsMember({"small", "full"}));
    sc->add_option("--runs", opts->analysis.runs, "Timed calls per median")->capture_default_str()
        ->check(CLI::PositiveNumber);
    sc->add_option("--seeds", opts->analysis.seeds, "Seeds each rewrite is checked on")->capture_default_str()
        ->check(CLI::PositiveNumber);
    sc->add_option("--min-speedup", opts->analysis.minSpeedup, "Flag when a checked rewrite is this much faster")
        ->capture_default_str();
    sc->add_option("--min-efficiency", opts->analysis.minEfficiency, "Flag when floor / eager time is below this")
        ->capture_default_str();
    sc->add_option("--max-passes", opts->analysis.maxPasses,
                   "Flag a memory-bound, not launch-bound task whose eager graph moves this many times its fused minimum (0: information only)")
        ->capture_default_str();
    sc->add_flag("--remeasure", opts->remeasure, "Measure the device ceilings again (ignore the cache)");
    sc->add_option("--out", opts->out, "Write the report (kernelsieve.inefficiency JSON) here");
    sc->callback([opts, &action] { action = [opts] { return run(*opts); }; });
}

} // namespace ks::cli
