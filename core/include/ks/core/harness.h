// SPDX-License-Identifier: MIT
#pragma once
// Kernel validation and timing harness. Each job (device ceilings, the eager baseline, one
// variant) runs in a child process — a worker — so a kernel that corrupts the CUDA context or
// crashes is reported as a failed variant instead of ending the run. No torch in this header.

#include "ks/core/benchresults.h"
#include "ks/core/compiledbaseline.h"
#include "ks/core/devices.h"
#include "ks/core/external.h"
#include "ks/core/taskspec.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ks::kernels {
struct Variant;
}

namespace ks {

struct HarnessOptions {
    int seeds = 100;         // random seeds validated per variant (fresh inputs each)
    double atol = 1e-5, rtol = 1e-4;
    bool edgeCases = true;   // empty, odd, misaligned, extreme, NaN/Inf inputs
    bool time = true;        // false: validate only
    int warmup = 25, runs = 2000;
    bool l2Flush = false;
    // Queue a spin kernel before each timed run so host launch latency stays out of the events
    // (device time). false: KernelBench-style, the launch latency of an idle device is counted.
    bool hideLaunchLatency = true;
    Preset preset = Preset::Full;
    // Named task dims set at `preset` (`--dim dim=393216`): tasks that have the name run at that
    // size, the others as they are. Empty: the suite's shapes.
    std::map<std::string, int64_t> dims;
    double jobTimeoutSeconds = 600; // a worker taking longer is killed and reported
    std::string variantPattern;     // globs on variant names; empty = all
    // External kernels: error ratio to eager float32 above which the `precision` guard fires.
    double precisionRatio = 32;
    // Baselines timed beside every variant, interleaved in the same worker: "eager" (always),
    // "compiled" (AOTInductor, compiledbaseline.h), "graph" (eager replayed from a CUDA graph).
    std::vector<std::string> baselines{"eager"};
    int blocks = 10; // the timed runs of each contender are split into this many interleaved blocks
    // `--devices`: the tasks' job sequences run on these GPUs in parallel, one task per GPU at a
    // time (all jobs of a task on one GPU, so no timing shares a GPU); the ceilings are measured on
    // each. Empty: every job on the workers' default device, one after another (one GPU). Not
    // passed to workers: each sees its GPU alone.
    std::vector<GpuSlot> devices;
};

// Task ids of a suite that have kernels, and the op serving each.
std::string opForTask(const std::string& taskId);
std::vector<std::string> tasksWithKernels();

// Extra variants (e.g. the deliberately cheating ones of the tests) that workers of this
// executable can evaluate by name, beside the registry's.
void registerExtraVariants(const std::vector<const kernels::Variant*>& variants);
const kernels::Variant* lookupVariant(const std::string& name);
std::vector<const kernels::Variant*> variantsForOp(const std::string& op); // registry + extras

struct WorkerCommand {
    std::string executable;              // the worker binary
    std::vector<std::string> prefixArgs; // e.g. {"worker"} for kernelsieve-cli
};

using BenchProgress = std::function<void(const std::string& line)>;

// An external kernel as the orchestrator runs it: found, then compiled (or not).
struct ExternalJob {
    ExternalKernel kernel;
    CompileResult compile;
};
// The variant row of an external kernel before (or without) its worker: identity, how it was
// compiled, and the refusal or compile error when there is one.
VariantResult externalSkeleton(const ExternalJob& job);

// Orchestrates the isolated jobs for every task with kernels in `tasks` and assembles the run:
// the built-in variants of tasks that have them (unless `builtins` is false) and every external
// kernel of `external` whose task is in `tasks`. `suite` is what workers load ("builtin" or a
// folder). Never throws for task or kernel problems (they are in the results); throws ks::Error
// if no CUDA device is usable.
// `compiled`: the compiled baselines by task id (compileBaselines), for a run whose baselines
// include "compiled"; a task without one gets the compile's error (or "not compiled").
BenchRun runBench(const std::vector<TaskSpec>& tasks, const std::string& suite, const HarnessOptions& opt,
                  const WorkerCommand& worker, const BenchProgress& progress = {},
                  const std::atomic<bool>* cancel = nullptr, const std::vector<ExternalJob>& external = {},
                  bool builtins = true, const std::map<std::string, BaselineCompileResult>& compiled = {});

// Worker entry: runs one job and writes its JSON result to `resultFile`. Jobs: "ceilings",
// "baseline" (needs task), "variant" (needs task + variant), "external" (task + soPath +
// function + plan: a kernel written by someone else, external/runner.cpp). Returns the process exit code.
struct WorkerJob {
    std::string job, suite, task, variant, resultFile;
    HarnessOptions options;
    double baselineMedianMs = 0;  // for the speedup
    double copyBandwidthGBs = 0;  // measured ceilings, for % of copy and the impossible check
    double fp32PeakTflops = 0;
    double l2Bytes = 0;
    // "external": the compiled kernel.so, the bound function and the call plan (JSON).
    std::string soPath, function, plan;
    std::string compiledPackage; // the task's compiled baseline (model.pt2), when the run has one
};
int runWorkerJob(const WorkerJob& job);
// Parses the arguments runBench gives a worker (after its prefix args). Throws ks::Error.
WorkerJob workerJobFromArgs(const std::vector<std::string>& args);

std::string harnessOptionsToJson(const HarnessOptions& o);
HarnessOptions harnessOptionsFromJson(const std::string& text);

} // namespace ks
