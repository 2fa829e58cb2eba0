// SPDX-License-Identifier: MIT
// kernelsieve-cli: the headless front end of the engine the GUI uses (GPU servers, scripts, CI).

#include "ks/core/compiledbaseline.h"
#include "ks/core/devices.h"
#include "ks/core/engine.h"
#ifdef KS_WITH_KERNELS
#include "ks/core/harness.h"
#include "ks/kernels/registry.h"
#endif
#include "cli_common.h"
#include "cli_diff.h"
#include "cli_filter.h"
#include "cli_filter_common.h"
#include "cli_import.h"
#include "cli_merge.h"
#include "cli_inefficiency.h"
#include "cli_redundancy.h"
#include "ks/core/analysisreports.h"
#include "ks/core/results.h"
#include "ks/core/resultsmerge.h"
#include "ks/core/suite.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

namespace {

std::atomic<bool> g_cancel{false};
std::atomic<bool> g_kill{false};
std::atomic<int> g_signals{0};

extern "C" void onSignal(int) {
    // Second Ctrl-C kills; the first one asks the engine to stop after the current seed.
    if (g_cancel.exchange(true)) std::_Exit(130);
}

// filter: the first Ctrl-C stops after the current seed, the second (or a SIGTERM, as the GUI's
// cancel sends) kills the worker at once; both keep the finished tasks. A third ends us.
extern "C" void onFilterSignal(int sig) {
    const int n = ++g_signals;
    g_cancel = true;
    if (sig == SIGTERM || n >= 2) g_kill = true;
    if (n >= 3) std::_Exit(130);
}

enum Exit { Ok = 0, Usage = 2, BadSuite = 3, BadDevice = 4, WriteFailed = 5 };

// The `--dim NAME=SIZE` values of bench / validate: SIZE a positive integer, NAME a dim of at
// least one of the selected tasks. Throws ks::Error naming the bad value.
std::map<std::string, int64_t> parseDimOverrides(const std::vector<std::string>& args,
                                                 const std::vector<ks::TaskSpec>& tasks) {
    std::set<std::string> known;
    for (const auto& t : tasks)
        for (const auto& n : t.dimNames()) known.insert(n);
    std::map<std::string, int64_t> dims;
    for (const auto& a : args) {
        const auto eq = a.find('=');
        const std::string name = eq == std::string::npos ? "" : a.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
        int64_t size = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
        if (name.empty() || value.empty() || ec != std::errc() || end != value.data() + value.size() || size <= 0)
            throw ks::Error("--dim '" + a + "': expected NAME=SIZE with SIZE a positive integer");
        if (!known.count(name)) {
            std::string names;
            for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
            throw ks::Error("--dim " + a + ": none of the selected tasks has a dim named '" + name +
                            "' (their dims: " + names + ")");
        }
        dims[name] = size;
    }
    return dims;
}

// The compiled baselines of `tasks` (parallel, cached), with a progress line per task on stderr;
// by task id. Never fails as a whole: a task that cannot be compiled has its reason.
std::map<std::string, ks::BaselineCompileResult> compileBaselinesVerbose(const std::vector<ks::TaskSpec>& tasks,
                                                                         const ks::BaselineCompileOptions& o,
                                                                         const std::atomic<bool>* cancel) {
    std::cerr << "compiling the PyTorch baseline of " << tasks.size() << " task(s) ahead of time with AOTInductor (cache "
              << (o.cacheDir.empty() ? ks::defaultBaselineCacheDir() : o.cacheDir) << ")\n";
    const auto t0 = std::chrono::steady_clock::now();
    const auto results = ks::compileBaselines(tasks, o, [](const ks::BaselineCompileResult& r, int done, int total) {
        std::string what = r.ok ? (r.cacheHit ? std::string("cached") : "compiled in " + std::to_string(static_cast<int>(r.seconds)) + " s")
                                : "FAILED: " + r.error;
        std::cerr << "[" << done << "/" << total << "] " << r.taskId << ": " << what << "\n";
    }, cancel);
    std::map<std::string, ks::BaselineCompileResult> byTask;
    int ok = 0, hits = 0;
    for (const auto& r : results) {
        ok += r.ok;
        hits += r.ok && r.cacheHit;
        byTask[r.taskId] = r;
    }
    std::fprintf(stderr, "compiled baselines: %d of %zu ready (%d from the cache) in %.1f s\n", ok, results.size(), hits,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return byTask;
}

int runCommand(int argc, char** argv) {
    CLI::App app{"KernelSieve: audit GPU-kernel benchmark tasks for flaws (headless engine)"};
    app.require_subcommand(0, 1);
    bool version = false;
    app.add_flag("--version", version, "Print the version, LibTorch, CUDA and the device, then exit");
    bool noSandbox = false;
    app.add_flag("--no-sandbox", noSandbox,
                 "Run task files and kernels WITHOUT the sandbox (with your full rights); only where the sandbox "
                 "is not available (docs/sandbox.md)");

    std::function<int()> filterAction; // filter (cli_filter.cpp)
    ks::cli::addFilterCommand(app, filterAction, g_cancel, g_kill, &ks::cli::filter::runWorker);

    // --- list -----------------------------------------------------------------------------
    auto* list = app.add_subcommand("list", "List the tasks of a suite");
    std::string listSuite = "builtin", listPattern;
    list->add_option("--suite", listSuite, "'builtin' or a suite folder")->capture_default_str();
    list->add_option("--tasks", listPattern, "Only tasks matching (globs, comma-separated)");

    // --- bench / validate / worker -------------------------------------------------------------
    auto* bench = app.add_subcommand("bench", "Validate and time the CUDA kernel variants against the eager baseline");
    auto* validate = app.add_subcommand("validate", "Validate the CUDA kernel variants (no timing)");
    bench->fallthrough(); // --no-sandbox may follow the subcommand
    validate->fallthrough();
    std::string bSuite = "builtin", bTasks, bVariants, bOut, bPreset = "full";
    int bSeeds = 100, bWarmup = 25, bRuns = 2000;
    double bAtol = 1e-5, bRtol = 1e-4, bTimeout = 600;
    bool bL2 = false, bNoEdges = false, bList = false;
    bool bCountLaunch = false;
    std::vector<std::string> bDims;
    std::string bKernels, bCacheDir, bPython, bCsv;
    bool bCompileOnly = false;
    int bCompileJobs = 0;
    double bCompileTimeout = 600, bPrecisionRatio = 32;
    std::string bDevices, bShard;
    for (auto* sc : {bench, validate}) {
        sc->add_option("--devices", bDevices,
                       "Spread the tasks over these GPUs of this host: all, or ordinals like 0,1 (all jobs of a "
                       "task on one GPU, one job per GPU at a time; ceilings measured on each)");
        sc->add_option("--shard", bShard,
                       "K/N: only the tasks at positions K-1, K-1+N, ... of the selected tasks with kernels "
                       "(as filter --shard)");
        sc->add_option("--suite", bSuite, "'builtin' or a suite folder")->capture_default_str();
        sc->add_option("--tasks", bTasks, "Only these tasks (globs); default: every task with kernels");
        sc->add_option("--variants", bVariants, "Only these variants (globs on names)");
        sc->add_option("--seeds", bSeeds, "Random seeds validated per variant")->capture_default_str()
            ->check(CLI::NonNegativeNumber);
        sc->add_option("--atol", bAtol, "Absolute tolerance")->capture_default_str()->check(ks::cli::finiteNonNegative());
        sc->add_option("--rtol", bRtol, "Relative tolerance")->capture_default_str()->check(ks::cli::finiteNonNegative());
        sc->add_flag("--no-edge-cases", bNoEdges, "Skip empty/odd/misaligned/extreme/NaN inputs");
        sc->add_option("--preset", bPreset, "Task shapes: small|full")->capture_default_str()
            ->check(CLI::IsMember({"small", "full"}));
        sc->add_option("--out", bOut, "Write the results (kernelsieve.bench JSON) here");
        sc->add_option("--csv", bCsv, "Also write one CSV row per baseline and variant (speedups over each baseline "
                                      "with intervals and p-values, clock records)");
        sc->add_option("--dim", bDims,
                       "Run tasks at another size: NAME=SIZE sets that dim at the preset (repeatable; "
                       "e.g. --dim dim=393216 --dim batch_size=1024 for long softmax rows)");
        sc->add_option("--job-timeout", bTimeout, "Seconds before a hung worker is killed")->capture_default_str()
            ->check(ks::cli::finiteSeconds());
        sc->add_flag("--list", bList, "List the variants and exit");
        sc->add_option("--kernels", bKernels,
                       "Evaluate kernels written by others instead of the built-in variants: a .cu/.py file "
                       "(--tasks names its task) or a folder (kernels.json manifest, or one subfolder per task); "
                       "see docs/external-kernels.md");
        sc->add_flag("--compile-only", bCompileOnly, "With --kernels: compile and report, no GPU needed");
        sc->add_option("--cache-dir", bCacheDir, "With --kernels: the compile cache (default $KS_KERNEL_CACHE or ~/.cache/kernelsieve/kernels)");
        sc->add_option("--compile-jobs", bCompileJobs, "With --kernels: parallel compiles (default: cores)")
            ->check(CLI::NonNegativeNumber);
        sc->add_option("--compile-timeout", bCompileTimeout, "With --kernels: seconds before a compile is killed")
            ->capture_default_str()->check(ks::cli::finiteSeconds());
        sc->add_option("--precision-ratio", bPrecisionRatio,
                       "With --kernels: kernel error / eager float32 error above which the precision guard fires")
            ->capture_default_str()->check(CLI::PositiveNumber);
        sc->add_option("--python", bPython, "With --kernels: Python with torch for capturing ModelNew files");
    }
    std::string bBaselines = "eager,compiled", bBaselineCache;
    int bBlocks = 10;
    bench->add_option("--baselines", bBaselines,
                      "Baselines timed beside every variant, interleaved in the same worker: eager (always), "
                      "compiled (PyTorch Inductor ahead of time, AOTInductor), graph (eager replayed from a CUDA graph)")
        ->capture_default_str();
    bench->add_option("--blocks", bBlocks, "Interleaved timing blocks per contender (A/B/B/A...)")
        ->capture_default_str()->check(CLI::Range(1, 1000));
    bench->add_option("--baseline-cache", bBaselineCache,
                      "The compiled-baseline cache (default $KS_BASELINE_CACHE or ~/.cache/kernelsieve/baselines)");
    bench->add_option("--warmup", bWarmup, "Warm-up runs")->capture_default_str()->check(CLI::NonNegativeNumber);
    bench->add_option("--runs", bRuns, "Timed runs")->capture_default_str()->check(CLI::PositiveNumber);
    bench->add_flag("--l2-flush", bL2, "Flush L2 between timed runs");
    bench->add_flag("--count-launch-latency", bCountLaunch,
                    "Count host launch latency in each timed run, as KernelBench does (default: a spin "
                    "kernel queued before each run hides it, for baseline and variants alike)");
    auto* compileBl = app.add_subcommand("compile-baselines",
                                         "Compile tasks ahead of time with PyTorch Inductor (the compiled baseline of bench)");
    compileBl->fallthrough();
    std::string cbSuite = "builtin", cbTasks, cbPreset = "full", cbDevice = "cuda", cbCache, cbPython;
    std::vector<std::string> cbDims;
    int cbJobs = 0;
    double cbTimeout = 1800;
    compileBl->add_option("--suite", cbSuite, "'builtin' or a suite folder")->capture_default_str();
    compileBl->add_option("--tasks", cbTasks, "Tasks (globs); default: every task with built-in kernels");
    compileBl->add_option("--preset", cbPreset, "Task shapes: small|full")->capture_default_str()
        ->check(CLI::IsMember({"small", "full"}));
    compileBl->add_option("--dim", cbDims, "NAME=SIZE, as for bench (repeatable)");
    compileBl->add_option("--device", cbDevice, "cuda|cpu: where the compiled model runs")->capture_default_str()
        ->check(CLI::IsMember({"cuda", "cpu"}));
    compileBl->add_option("--cache-dir", cbCache, "The cache (default $KS_BASELINE_CACHE or ~/.cache/kernelsieve/baselines)");
    compileBl->add_option("--python", cbPython, "Python with torch (default $KS_PYTHON, else python3 on PATH)");
    compileBl->add_option("--jobs", cbJobs, "Parallel compiles (default: a quarter of the cores)")->check(CLI::NonNegativeNumber);
    compileBl->add_option("--timeout", cbTimeout, "Seconds before one compile is stopped")->capture_default_str()
        ->check(ks::cli::finiteSeconds());
    auto* worker = app.add_subcommand("worker", "(internal) run one isolated harness job");
    worker->group("");
    worker->allow_extras();
    worker->prefix_command();
    std::function<int()> importAction; // import-kernelbench / export-robust-kbench (cli_import.cpp)
    ks::cli::addImportCommands(app, importAction);
    std::function<int()> inefficiencyAction; // inefficiency (cli_inefficiency.cpp)
    ks::cli::addInefficiencyCommand(app, inefficiencyAction);
    std::function<int()> mergeAction; // merge (cli_merge.cpp)
    ks::cli::addMergeCommand(app, mergeAction);
    std::function<int()> redundancyAction; // redundancy (cli_redundancy.cpp)
    ks::cli::addRedundancyCommand(app, redundancyAction);
    std::function<int()> diffAction; // diff (cli_diff.cpp)
    ks::cli::addDiffCommand(app, diffAction);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? Exit::Ok : Exit::Usage;
    }

    if (version) {
        try {
            const auto dev = ks::probeDevice("auto");
            std::cout << "kernelsieve-cli " << ks::toolVersion() << "\nLibTorch " << dev.libtorch
                      << "\nCUDA runtime " << (dev.cuda.empty() ? "none" : dev.cuda)
                      << (dev.driver.empty() ? "" : ", driver " + dev.driver) << "\nDevice "
                      << dev.device << ": " << dev.name << "\n";
        } catch (const std::exception& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadDevice;
        }
        return Exit::Ok;
    }
    try {
        ks::setSandboxMode(ks::sandboxModeFromEnvironment(noSandbox));
    } catch (const ks::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return Exit::Usage;
    }
    if (filterAction) {
        std::signal(SIGINT, onFilterSignal);
        std::signal(SIGTERM, onFilterSignal);
        return filterAction();
    }
    if (importAction) return importAction();
    if (mergeAction) return mergeAction();
    if (inefficiencyAction) return inefficiencyAction();
    if (redundancyAction) return redundancyAction();
    if (diffAction) return diffAction();

    if (list->parsed()) {
        try {
            const auto s = ks::loadSuite(listSuite);
            for (const auto& issue : s.issues) std::cerr << "warning: " << issue.message << "\n";
            for (const auto& t : ks::selectTasks(s, listPattern))
                std::cout << t.id << '\t' << t.level << '\t' << t.category << '\t' << t.name << '\n';
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadSuite;
        }
        return Exit::Ok;
    }

    if (compileBl->parsed()) {
        ks::Suite cs;
        try {
            cs = ks::loadSuite(cbSuite);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadSuite;
        }
        std::vector<ks::TaskSpec> ctasks;
        for (const auto& t : ks::selectTasks(cs, cbTasks)) {
#ifdef KS_WITH_KERNELS
            if (cbTasks.empty() && ks::opForTask(t.id).empty()) continue;
#else
            if (cbTasks.empty()) continue;
#endif
            ctasks.push_back(t);
        }
        if (ctasks.empty()) {
            std::cerr << "error: no task of suite '" << cbSuite << "' "
                      << (cbTasks.empty() ? "has built-in kernels (name some with --tasks)" : "matches --tasks '" + cbTasks + "'")
                      << "\n";
            return Exit::BadSuite;
        }
        if (const int rc = ks::cli::checkSandbox()) return rc;
        ks::BaselineCompileOptions co;
        try {
            co.dims = parseDimOverrides(cbDims, ctasks);
            if (cbDevice == "cuda") {
                const auto dev = ks::probeDevice("cuda");
                co.deviceName = dev.name;
            }
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return cbDevice == "cuda" ? Exit::BadDevice : Exit::Usage;
        }
        co.device = cbDevice;
        co.preset = *ks::parsePreset(cbPreset);
        co.cacheDir = cbCache;
        co.python = cbPython;
        co.jobs = cbJobs;
        co.timeoutSeconds = cbTimeout;
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
        const auto res = compileBaselinesVerbose(ctasks, co, &g_cancel);
        int failed = 0;
        for (const auto& t : ctasks) {
            const auto& r = res.at(t.id);
            failed += !r.ok;
            std::printf("%-8s %-10s %8s  %s\n", t.id.c_str(), r.ok ? (r.cacheHit ? "cached" : "compiled") : "FAILED",
                        r.ok && !r.cacheHit ? (std::to_string(static_cast<int>(r.seconds)) + " s").c_str() : "",
                        r.ok ? r.packagePath.c_str() : r.error.substr(0, 300).c_str());
        }
        return g_cancel ? 130 : (failed ? 1 : Exit::Ok);
    }

    if (worker->parsed() || bench->parsed() || validate->parsed()) {
#ifdef KS_WITH_KERNELS
        if (worker->parsed()) {
            try {
                return ks::runWorkerJob(ks::workerJobFromArgs(worker->remaining()));
            } catch (const ks::Error& e) {
                std::cerr << "error: " << e.what() << "\n";
                return Exit::Usage;
            }
        }
        if (bList) {
            for (const auto& v : ks::kernels::registry())
                std::cout << v.op << '\t' << v.name << "\tv" << v.version << (v.shortcut ? "\tshortcut" : "")
                          << '\t' << v.summary << '\n';
            return Exit::Ok;
        }
        ks::HarnessOptions ho;
        ho.seeds = bSeeds;
        ho.atol = bAtol;
        ho.rtol = bRtol;
        ho.edgeCases = !bNoEdges;
        ho.time = bench->parsed();
        ho.warmup = bWarmup;
        ho.runs = bRuns;
        ho.l2Flush = bL2;
        ho.hideLaunchLatency = !bCountLaunch;
        ho.preset = *ks::parsePreset(bPreset);
        ho.jobTimeoutSeconds = bTimeout;
        ho.variantPattern = bVariants;
        ho.precisionRatio = bPrecisionRatio;
        ho.blocks = bBlocks;
        try {
            ho.baselines = bench->parsed() ? ks::parseBaselines(bBaselines) : std::vector<std::string>{"eager"};
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::Usage;
        }
        ks::Suite bs;
        try {
            bs = ks::loadSuite(bSuite);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadSuite;
        }
        std::vector<ks::ExternalJob> externalJobs;
        std::vector<ks::TaskSpec> btasks;
        if (!bKernels.empty()) {
            if (const int rc = ks::cli::checkSandbox()) return rc;
            std::signal(SIGINT, onSignal);
            std::signal(SIGTERM, onSignal);
            std::vector<ks::ExternalKernel> found;
            std::vector<std::string> warnings;
            try {
                ks::DiscoverOptions dopt;
                dopt.tasksPattern = bTasks;
                dopt.python = bPython;
                found = ks::discoverKernels(bKernels, bs, dopt, &warnings);
            } catch (const ks::Error& e) {
                std::cerr << "error: " << e.what() << "\n";
                return Exit::Usage;
            }
            for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
            if (found.empty()) {
                std::cerr << "error: no kernel found under " << bKernels << "\n";
                return Exit::Usage;
            }
            if (!bShard.empty()) {
                // The tasks that have kernels, in suite order, split as filter --shard splits a
                // selection; only their kernels are compiled.
                int k = 0, n = 0;
                if (!ks::cli::parseShard(bShard, k, n)) {
                    std::cerr << "error: --shard '" << bShard << "': expected K/N with 1 <= K <= N, e.g. 3/8\n";
                    return Exit::Usage;
                }
                std::vector<std::string> withKernels;
                for (const auto& t : bs.tasks)
                    for (const auto& fk : found)
                        if (fk.taskId == t.id) {
                            withKernels.push_back(t.id);
                            break;
                        }
                std::set<std::string> mine;
                for (size_t i : ks::shardPositions(withKernels.size(), k, n)) mine.insert(withKernels[i]);
                std::vector<ks::ExternalKernel> kept;
                for (auto& fk : found)
                    if (mine.count(fk.taskId)) kept.push_back(std::move(fk));
                std::cerr << "shard " << k << "/" << n << ": " << mine.size() << " of " << withKernels.size()
                          << " tasks with kernels (" << kept.size() << " kernels)\n";
                if (kept.empty()) {
                    std::cerr << "error: shard " << bShard << " has no task with kernels\n";
                    return Exit::BadSuite;
                }
                found = std::move(kept);
            }
            ks::CompileOptions copt;
            copt.cacheDir = bCacheDir;
            copt.jobs = bCompileJobs;
            copt.timeoutSeconds = bCompileTimeout;
            std::cerr << "compiling " << found.size() << " kernels (cache " << (bCacheDir.empty() ? ks::defaultKernelCacheDir() : bCacheDir)
                      << ")\n";
            const auto t0 = std::chrono::steady_clock::now();
            const auto compiled = ks::compileKernels(found, copt, [](const ks::ExternalKernel& k, const ks::CompileResult& r, int done, int total) {
                std::string what = !k.error.empty() ? "refused: " + k.error
                                   : r.ok        ? (r.cacheHit ? std::string("cached") : "compiled in " + std::to_string(static_cast<int>(r.seconds)) + " s")
                                                 : "COMPILE ERROR";
                std::cerr << "[" << done << "/" << total << "] " << (k.taskId.empty() ? "?" : k.taskId) << " " << k.name << ": " << what << "\n";
            }, &g_cancel);
            const double compileWall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            int hits = 0, ok = 0;
            for (size_t i = 0; i < found.size(); ++i) {
                hits += compiled[i].cacheHit;
                ok += compiled[i].ok;
                externalJobs.push_back({found[i], compiled[i]});
            }
            std::fprintf(stderr, "compile: %d of %zu kernels ready (%d from the cache) in %.1f s\n", ok, found.size(), hits, compileWall);
            for (const auto& t : bs.tasks)
                for (const auto& j : externalJobs)
                    if (j.kernel.taskId == t.id) {
                        btasks.push_back(t);
                        break;
                    }
            if (bCompileOnly) {
                // The report without a GPU: one row per kernel, its verdict so far.
                ks::BenchRun run;
                run.toolVersion = ks::toolVersion();
                run.created = ks::isoTimeNow();
                run.preset = bPreset;
                std::map<std::string, ks::TaskBench> byTask;
                for (const auto& j : externalJobs) {
                    auto& tb = byTask[j.kernel.taskId];
                    tb.taskId = j.kernel.taskId;
                    if (const auto* t = bs.find(j.kernel.taskId)) tb.taskName = t->name;
                    ks::VariantResult v = ks::externalSkeleton(j);
                    tb.variants.push_back(v);
                    const std::string verdict = v.external.compiled ? "compiled" : ks::variantVerdict(v);
                    std::string detail = v.external.compiled ? "" : ks::verdictDetail(v);
                    std::printf("%-8s %-36s %-16s %-14s %s\n", j.kernel.taskId.c_str(), j.kernel.name.c_str(),
                                j.kernel.format.c_str(), verdict.c_str(), detail.substr(0, 200).c_str());
                }
                for (auto& [id, tb] : byTask) run.tasks.push_back(std::move(tb));
                if (!bOut.empty()) {
                    try {
                        ks::writeFileAtomic(bOut, ks::benchToJson(run));
                        std::cerr << "results in " << bOut << "\n";
                    } catch (const ks::Error& e) {
                        std::cerr << "error: " << e.what() << "\n";
                        return Exit::WriteFailed;
                    }
                }
                return g_cancel ? 130 : Exit::Ok;
            }
        } else {
            if (bCompileOnly) {
                std::cerr << "error: --compile-only needs --kernels\n";
                return Exit::Usage;
            }
            for (const auto& t : ks::selectTasks(bs, bTasks))
                if (!ks::opForTask(t.id).empty()) btasks.push_back(t);
        }
        int shardK = 0, shardN = 0;
        if (!bShard.empty()) {
            if (!ks::cli::parseShard(bShard, shardK, shardN)) {
                std::cerr << "error: --shard '" << bShard << "': expected K/N with 1 <= K <= N, e.g. 3/8\n";
                return Exit::Usage;
            }
            // Over the built-ins' tasks here; with --kernels the kernels were sharded by task before compiling.
            if (bKernels.empty()) {
                std::vector<ks::TaskSpec> mine;
                for (size_t i : ks::shardPositions(btasks.size(), shardK, shardN)) mine.push_back(btasks[i]);
                std::cerr << "shard " << shardK << "/" << shardN << ": " << mine.size() << " of " << btasks.size()
                          << " tasks\n";
                if (mine.empty() && !btasks.empty()) {
                    std::cerr << "error: shard " << bShard << " has no task (" << btasks.size() << " selected)\n";
                    return Exit::BadSuite;
                }
                btasks = std::move(mine);
            }
        }
        if (btasks.empty() && !bKernels.empty()) {
            std::cerr << "error: none of the kernels under " << bKernels << " could be placed on a task of suite '" << bSuite
                      << "' (see the refusals above)\n";
            return Exit::BadSuite;
        }
        if (btasks.empty()) {
            std::cerr << "error: no task with kernels in suite '" << bSuite << "'"
                      << (bTasks.empty() ? "" : " matches --tasks '" + bTasks + "'") << "\n";
            return Exit::BadSuite;
        }
        try {
            ho.dims = parseDimOverrides(bDims, btasks);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::Usage;
        }
        try {
            if (!ks::probeDevice("auto").cudaAvailable)
                throw ks::Error("kernel validation and timing need a CUDA device, and none is usable here");
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadDevice;
        }
        if (!bDevices.empty()) {
            try {
                ho.devices = ks::resolveDevices(bDevices);
            } catch (const ks::Error& e) {
                std::cerr << "error: " << e.what() << "\n";
                return Exit::Usage;
            }
            std::string which;
            for (const auto& g : ho.devices) which += (which.empty() ? "" : ", ") + std::to_string(g.ordinal);
            std::cerr << "devices: " << ho.devices.size() << " GPU(s) (" << which << "), one task per GPU at a time\n";
        }
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);
        std::error_code ec;
        const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
        ks::WorkerCommand wc{ec ? std::string(argv[0]) : self.string(), {"worker"}};
        // The compiled baseline of every timed task, before any timing (the compiles load the CPU
        // and the GPU).
        std::map<std::string, ks::BaselineCompileResult> compiledBaselines;
        if (std::find(ho.baselines.begin(), ho.baselines.end(), "compiled") != ho.baselines.end()) {
            if (const int rc = ks::cli::checkSandbox()) return rc;
            ks::BaselineCompileOptions co;
            co.device = "cuda";
            co.deviceName = ks::probeDevice("auto").name;
            co.preset = ho.preset;
            co.dims = ho.dims;
            co.cacheDir = bBaselineCache;
            co.python = bPython;
            co.jobs = bCompileJobs;
            co.timeoutSeconds = std::max(bCompileTimeout, 1800.0);
            compiledBaselines = compileBaselinesVerbose(btasks, co, &g_cancel);
            if (g_cancel) return 130;
        }
        ks::BenchRun run;
        try {
            run = ks::runBench(btasks, bSuite, ho, wc, [](const std::string& l) { std::cerr << l << "\n"; }, &g_cancel,
                               externalJobs, externalJobs.empty(), compiledBaselines);
        } catch (const ks::Error& e) {
            std::cerr << "error: " << e.what() << "\n";
            return Exit::BadDevice;
        }
        run.shardIndex = shardK;
        run.shardCount = shardN;
        // Summary table: one column pair (speedup, 95 % interval) per baseline of the run.
        const std::vector<std::string>& kinds = run.baselines;
        auto clockNote = [](const ks::TimingStats& t) -> std::string {
            const int moved = t.movedBlocks();
            if (!moved) return "";
            return "clock moved in " + std::to_string(moved) + " of " + std::to_string(t.clockBlocks.size()) + " blocks";
        };
        auto join = [](std::string a, const std::string& b) { return b.empty() ? a : a.empty() ? b : a + "; " + b; };
        std::printf("%-8s %-44s %-6s %11s", "task", "variant", "valid", "median ms");
        for (const auto& k : kinds) std::printf(" %9s %15s", ("x " + k).c_str(), "95% CI");
        std::printf(" %7s %s\n", "%copy", "notes");
        int movedTimings = 0;
        for (const auto& t : run.tasks) {
            // The baselines themselves, each against eager.
            std::printf("%-8s %-44s %-6s %11.4f", t.taskId.c_str(), ks::baselineLabel("eager").c_str(), "-", t.baseline.medianMs);
            for (const auto& k : kinds) std::printf(" %9s %15s", k == "eager" ? "1.00x" : "", "");
            std::string bnote = join(t.baselineError, clockNote(t.baseline));
            movedTimings += t.baseline.movedBlocks() > 0;
            std::printf(" %7s %s\n", "", bnote.c_str());
            for (const auto& b : t.otherBaselines) {
                char med[32] = "-", sp[32] = "", ci[48] = "";
                if (b.usable()) std::snprintf(med, sizeof med, "%.4f", b.timing.medianMs);
                if (b.usable() && !std::isnan(b.vsEager.ratio)) std::snprintf(sp, sizeof sp, "%.2fx", b.vsEager.ratio);
                if (b.vsEager.measured()) std::snprintf(ci, sizeof ci, "[%.2f, %.2f]", b.vsEager.lo, b.vsEager.hi);
                std::string note = b.error;
                if (b.usable() && b.validation.run && !b.validation.passed)
                    note = join("INVALID against the float64 reference", b.validation.failures.empty() ? "" : b.validation.failures.front());
                if (b.kind == "compiled" && b.usable())
                    note = join(note, b.cacheHit ? "compiled package from the cache"
                                                 : "compiled in " + std::to_string(static_cast<int>(b.compileSeconds)) + " s");
                note = join(note, clockNote(b.timing));
                movedTimings += b.timing.movedBlocks() > 0;
                std::printf("%-8s %-44s %-6s %11s", t.taskId.c_str(), ks::baselineLabel(b.kind).c_str(),
                            b.validation.run ? (b.validation.passed ? "yes" : "NO") : "-", med);
                for (const auto& k : kinds) std::printf(" %9s %15s", k == "eager" ? sp : "", k == "eager" ? ci : "");
                std::printf(" %7s %s\n", "", note.substr(0, 300).c_str());
            }
            for (const auto& v : t.variants) {
                char pct[32] = "";
                if (!std::isnan(v.pctCopyBandwidth)) std::snprintf(pct, sizeof pct, "%.1f", v.pctCopyBandwidth);
                std::string notes = v.error;
                if (v.impossible) notes = join(notes, "IMPOSSIBLE: " + v.impossibleWhy);
                if (!v.validation.passed && !v.validation.failures.empty() && v.error.empty())
                    notes = join(notes, v.validation.failures.front());
                if (v.shortcut) notes = "[shortcut] " + notes;
                if (v.isExternal()) {
                    notes = "[" + ks::variantVerdict(v) + "] " + ks::verdictDetail(v);
                    if (!v.external.expect.empty()) notes += " (expected " + v.external.expect + ")";
                }
                // An interval holding 1 is no measurable difference, whatever the point estimate says.
                std::string same;
                for (const auto& k : kinds)
                    if (v.statsVs(k).noMeasurableDifference()) same += (same.empty() ? "" : ", ") + k;
                if (!same.empty()) notes = join("no measurable difference vs " + same, notes);
                notes = join(notes, clockNote(v.timing));
                movedTimings += v.timing.movedBlocks() > 0;
                std::printf("%-8s %-44s %-6s %11.4f", t.taskId.c_str(), v.name.substr(0, 44).c_str(),
                            v.validation.passed ? "yes" : "NO", v.timing.medianMs);
                for (const auto& k : kinds) {
                    const double x = v.speedupVs(k);
                    const ks::SpeedupStats st = v.statsVs(k);
                    char sp[32] = "", ci[48] = "";
                    if (!std::isnan(x)) std::snprintf(sp, sizeof sp, "%.2fx", x);
                    if (st.measured()) std::snprintf(ci, sizeof ci, "[%.2f, %.2f]", st.lo, st.hi);
                    std::printf(" %9s %15s", sp, ci);
                }
                std::printf(" %7s %s\n", pct, notes.substr(0, 400).c_str());
            }
        }
        if (!run.clockSource.empty() && run.clockSource != "nvml")
            std::fprintf(stderr, "note: no clock records (%s)\n", run.clockSource.c_str());
        if (movedTimings)
            std::fprintf(stderr, "note: the SM clock moved by more than %.0f %% within a timed block in %d timings "
                                 "(see the notes and the bench file's clock_blocks)\n",
                         ks::ClockDriftLimit * 100, movedTimings);
        if (!bOut.empty() || !bCsv.empty()) {
            try {
                if (!bOut.empty()) {
                    ks::writeFileAtomic(bOut, ks::benchToJson(run));
                    std::cerr << "results in " << bOut << "\n";
                }
                if (!bCsv.empty()) {
                    ks::writeFileAtomic(bCsv, ks::benchToCsv(run));
                    std::cerr << "CSV in " << bCsv << "\n";
                }
            } catch (const ks::Error& e) {
                std::cerr << "error: " << e.what() << "\n";
                return Exit::WriteFailed;
            }
        }
        return g_cancel ? 130 : Exit::Ok;
#else
        std::cerr << "error: this kernelsieve-cli was built without the CUDA kernels (no nvcc at configure time)\n";
        return Exit::BadDevice;
#endif
    }

    std::cout << app.help();
    return Exit::Usage;
}

} // namespace

// Everything the command writes is written and closed when it returns: the process ends there,
// without LibTorch's static destructors and the CUDA teardown (0.1-0.5 s, a third of a short
// run's fixed cost on the H200; bench/engine/RESULTS.md).
int main(int argc, char** argv) {
    ks::cli::traceStart(std::string("main of ") + (argc > 2 && std::string(argv[2]) == "--worker-fd" ? "a worker" : "kernelsieve-engine"));
    const int rc = runCommand(argc, argv);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(rc);
}
