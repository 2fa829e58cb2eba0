// SPDX-License-Identifier: MIT
#pragma once
// Filter 5, baseline inefficiency, measured: the eager baseline's time against its roofline floor
// (fewest bytes over the device's measured copy bandwidth, graph FLOPs over its measured FP32
// peak), plus rewrite rules for known waste on the task's TorchScript graph, each rewrite run,
// checked equal to the original and timed. Plain result structs, no torch here (the analysis
// lives in inefficiency.cpp), so the CLI and later the GUI include it cheaply.
// docs/inefficiency.md describes the method and its limits.

#include "ks/core/redundancy.h"
#include "ks/core/taskspec.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks {

class OperandSource; // ks/core/operands.h (engine side)
struct CompiledTask;  // ks/core/torchtask.h (engine side)

// What one device can do at best, measured once and cached (see deviceCeilings).
struct DeviceCeilings {
    std::string device;          // "cpu" | "cuda"
    std::string deviceName;      // "NVIDIA H200", the CPU model
    std::string measured;        // ISO time of the measurement
    double copyBandwidthGBs = 0; // device-to-device copy of the largest buffer, bytes read + written / s / 1e9
    // Copy bandwidth by size: (bytes read + written, GB/s), ascending. A task whose tensors sit in
    // cache moves them faster than DRAM allows, so its memory floor uses the bandwidth at its own
    // byte count (log-interpolated), not the DRAM figure alone.
    std::vector<std::pair<double, double>> copyCurve;
    double fp32PeakGflops = 0;   // FP32 matrix product (no TF32), GFLOP/s
    // exp() over a float32 tensor, elements/s (1e9): the rate of transcendental elementwise work
    // (exp, tanh, erf, log, ...), which a CPU pays in instructions, not in bytes.
    double transcendentalGelems = 0;
    // One kernel launch as the eager timing sees it: a one-element elementwise op, timed like the
    // task (same clock, same statistic). No single-kernel task can be faster, so it is the floor
    // of a tiny task, and launches x this is what a launch-bound task costs.
    double launchMs = 0;
    // CUDA: the same one-element op captured in a CUDA graph and replayed, timed the same way:
    // one kernel without the host's dispatch, the floor a graph replay of a task is compared with
    // (InefficiencyReport::graphMs). 0 on the CPU or where it could not be captured.
    double graphLaunchMs = 0;
    // CUDA: what each further kernel of a replayed graph adds (64 such negs in one graph, less one,
    // over 63): a kernel boundary inside a graph, without the graph's own launch. 0 as above.
    double graphKernelMs = 0;
    int threads = 0;             // CPU: intra-op threads the rate was measured with
    std::string method;          // how the two numbers were measured, in words
    std::string source;          // "measured" or the cache file it was read from

    // The best copy bandwidth (GB/s) for moving `bytes` (read + written): the curve at that size,
    // or a larger measured copy's if that was faster (a small copy's time is mostly its launch,
    // which the curve must not charge as bandwidth); copyBandwidthGBs without a curve.
    double bandwidthAt(double bytes) const;
    // Time (ms) `bytes` take at bandwidthAt(bytes): a lower bound, launch not included.
    double copyTimeMs(double bytes) const;
};

// Measures the ceilings of `device` ("cpu" or "cuda") now. CPU: tensor copies from 16 KiB to 64 MiB
// (read + write counted) and at::mm on 2048x2048 float32. CUDA: what the kernel harness measures (1 GiB
// cudaMemcpy-class copy, 8192^2 FP32 mm with TF32 off). Throws ks::Error for an unusable device.
DeviceCeilings measureCeilings(const std::string& device, int cpuThreads = 1);

// The ceilings for `device` from the cache (cacheDir/ceilings-<device>.json, default
// $XDG_CACHE_HOME or ~/.cache/kernelsieve), measured and stored when missing, unreadable,
// measured on another device name or `remeasure` is set. A cache that cannot be written is only
// noted in `source`.
// cpuThreads: the intra-op thread count CPU ceilings are measured (and cached) with; 0 = LibTorch's.
DeviceCeilings deviceCeilings(const std::string& device, bool remeasure = false, const std::string& cacheDir = {},
                              int cpuThreads = 1);
std::string defaultCeilingsCacheDir();

// Two callables timed in alternation (see timeInterleaved).
struct InterleavedTiming {
    double firstMs = 0;  // the statistic of the first callable's calls: CUDA the median, CPU the minimum
    double secondMs = 0; // the second's, over calls made in the same rounds
    int runs = 0;        // rounds timed (one call of each per round)
};

// Times `first` and `second` on `device` ("cpu" | "cuda") in alternating rounds, one call of each a
// round, after `warmup` rounds; budgetMs > 0 times fewer rounds (at least 5) when a round is slow.
// How filter 5 times a rewrite against the original graph, so that a slow spell of the device or the
// host lands on both and cannot make a speedup.
InterleavedTiming timeInterleaved(const std::function<void()>& first, const std::function<void()>& second,
                                  int warmup, int runs, const std::string& device, double budgetMs = 0);
// One callable timed alone, `runs` calls after `warmup`, with the same statistic (what filter 5
// reports as a task's eager time).
double timeCalls(const std::function<void()>& f, int warmup, int runs, const std::string& device);

// One rewrite rule applied at one place in the graph.
struct RewriteResult {
    std::string rule;        // "diag-matmul", "triangular-matmul", "softmax-log", "materialised-broadcast",
                             // "repeated-layout", "duplicate-reduction", "reduce-after-linear",
                             // "consecutive-pools", "scalar-chain", "drop-redundant"
    std::string what;        // what was found and what it is rewritten to
    std::string node;        // the matched node as TorchScript prints it
    int line = 0;            // 1-based source line of the matched node (0: unknown)
    bool implemented = true; // false: detected and reported, no cheaper rewrite exists here
    bool equal = false;      // the rewritten graph matched the original on every seed
    double maxAbsDiff = 0;   // largest |rewritten - original| over the seeds
    double timeMs = 0;       // time of the rewritten graph (statistic as eagerMs)
    double originalMs = 0;   // time of the original graph, timed in the same rounds as the rewrite (timeInterleaved)
    double speedup = 0;      // originalMs / timeMs: both graphs run the same way, in alternation (0 when not run or not equal)
    std::string error;       // the rewrite failed to run (the rule is then ignored)
};

struct InefficiencyOptions {
    std::string device = "auto";  // auto | cpu | cuda
    std::optional<Preset> preset; // default: full on CUDA, small on CPU (as the engine)
    int warmup = 3;
    int runs = 20;      // timed calls per median
    // A call slower than timingBudgetMs / runs is timed fewer times: as many as fit in about this
    // many ms, at least 5 (the report's `runs` and a note say so); 0: always `runs`.
    double timingBudgetMs = 1000;
    int seeds = 3;      // equality check of each rewrite on seeds 0..seeds-1
    double rtol = 1e-4; // the seed's validation bar
    double atol = 1e-5;
    double minSpeedup = 2.0;     // flag when a checked rewrite is at least this much faster
    double minEfficiency = 0.05; // flag when floor / eager time is below this (docs/inefficiency.md)
    int cpuThreads = 1;          // intra-op threads for CPU timings (0: LibTorch's default); see inefficiency.cpp
    double maxPasses = 0.0;      // > 0: flag a memory-bound, not launch-bound task whose eager graph moves >= this many times its fused minimum (0: passes are information)
    // The seeds' operands: the engine passes its task's (drawn once for every filter); null: drawn
    // here, on the CPU generator (as the engine draws them) unless cpuGenerator is false.
    OperandSource* operands = nullptr;
    // Nothing asks `operands` for these seeds after this analysis (the engine: filter 5 runs
    // last): they are taken with takeSeed(), so kept device copies are not copied again.
    bool lastUseOfOperands = false;
    bool cpuGenerator = true;
    // The task as the engine compiled it for the statistics (its artifact loaded on each device
    // once): used as it is; null: compiled (loaded) here.
    const CompiledTask* compiled = nullptr;
    // Called once, right before the task is first timed, with the number of kernels its eager
    // graph launches: the engine decides there whether host threads drawing the next task's
    // operands must pause (they must while the timing may depend on the host: a launch-bound
    // task). Returns a note for the report, or "".
    std::function<std::string(int launches)> beforeTiming;
    // Tests: the check of the n-th rewrite (1-based) throws as if the device ran out of memory
    // (0: never).
    int outOfMemoryAtRewrite = 0;
};

struct InefficiencyReport {
    std::string taskId, taskName;
    std::string device; // "cpu" | "cuda": timings are of this device
    Preset preset = Preset::Small;
    int runs = 0;
    double bytes = 0;           // inputs + params read once, output written once
    double flops = 0;           // graph estimate (docs/inefficiency.md)
    double transcendentals = 0; // elements passed through exp/tanh/erf/log/... (docs/inefficiency.md)
    double bandwidthGBs = 0;    // copy bandwidth at this task's byte count
    double memoryFloorMs = 0;   // bytes / that bandwidth
    double computeFloorMs = 0;  // flops / FP32 peak + transcendentals / exp rate
    // Recurrent layers (aten::lstm/gru/rnn_*): steps that must run one after another, each after
    // a device-wide synchronisation, which costs at least one launch (launchMs) -- the serial
    // floor. 0 without recurrences (docs/inefficiency.md).
    double serialSteps = 0;
    double serialFloorMs = 0;   // serialSteps x launchMs
    double floorMs = 0;         // max of the memory, compute and serial floors and one launch
    double eagerMs = 0;         // eager time of the task: CUDA the median, CPU the minimum of the runs
    double eagerMedianMs = 0;   // the median, for the record
    double efficiency = 0;      // floorMs / eagerMs (may exceed 1 when the data sits in cache)
    // Unfused passes: bytes the eager graph moves (every non-view op reads its tensor operands
    // and writes its output) over `bytes`, the fewest a single fused pass needs.
    double eagerTrafficBytes = 0;
    // Bytes no fusion can avoid beyond `bytes`: the output of a GEMM/convolution (a compute op
    // whose result the next op needs) written once and read once. Counted in the fused minimum.
    double unavoidableBytes = 0;
    double passes = 0;          // eagerTrafficBytes / (bytes + unavoidableBytes)
    bool memoryBound = false;   // memoryFloorMs >= computeFloorMs
    // Launch-bound: the eager time is within 2x of what its kernel launches alone cost
    // (launches x the device's smallest measured copy, a launch); efficiency and passes then
    // describe launch latency, not avoidable work, and do not flag.
    int launches = 0;           // top-level ops that run a kernel (not views, not metadata)
    double launchMs = 0;        // one launch: the time of the smallest measured copy
    bool launchBound = false;   // launchMs > 0 and eagerMs <= launchBoundLimitMs()
    // 2 x launches (at least one) x one launch: the eager time at or under which the task is
    // launch-bound.
    double launchBoundLimitMs() const { return 2.0 * (launches > 1 ? launches : 1) * launchMs; }
    // The eager graph's GPU work without the host's dispatch: the task's forward captured once in a
    // CUDA graph and replayed, timed like eagerMs (CUDA only). Measured where the host can be a
    // sizeable share of the eager time (eagerMs at most graphTimingLimitMs()); 0 otherwise, or
    // when the forward cannot be captured (graphError says why). Reported beside the eager time;
    // the verdicts are still the eager time's (docs/inefficiency.md, "Host dispatch").
    double graphMs = 0;
    double graphLaunchMs = 0;   // DeviceCeilings::graphLaunchMs, the floor of one replayed kernel
    double graphKernelMs = 0;   // DeviceCeilings::graphKernelMs, each further kernel of a replay
    std::string graphError;
    // Times one eager forward makes the host wait for the GPU (a value read back, a stream
    // synchronisation: countHostSyncs in cudagraph.h); -1 when not counted (CPU, reports from
    // before 2026-12-05). The eager time includes those waits, and such a forward cannot be
    // captured in a CUDA graph.
    int hostSyncs = -1;
    // The eager time above which the graph replay is not measured: 10 x the launch-bound limit.
    double graphTimingLimitMs() const { return 10.0 * launchBoundLimitMs(); }
    // What the host's dispatch adds to the eager time: eagerMs - graphMs (0 when not measured).
    double dispatchMs() const { return graphMs > 0 && eagerMs > graphMs ? eagerMs - graphMs : 0.0; }
    // dispatchMs() as a share of the eager time (0 when not measured).
    double dispatchShare() const { return eagerMs > 0 ? dispatchMs() / eagerMs : 0.0; }
    bool tf32 = false;          // TF32 allowed while timing (false since TF32 is turned off for the analysis)
    std::vector<RewriteResult> rewrites;
    double bestSpeedup = 1;     // over equal, implemented rewrites (1: none faster)
    std::string bestRule;
    bool flaggedRewrite = false;
    bool flaggedEfficiency = false;
    bool flaggedPasses = false; // memoryBound and passes >= maxPasses
    bool flagged = false;
    std::vector<std::string> notes;
    std::string error; // non-empty: the analysis failed (message names the task)
};

// Never throws for problems of the task itself; they land in `error`.
// `redundancy`: filter 6's report of the same task on the same device, if it ran first; when it
// found something and carries its reduced graph, the rule "drop-redundant" runs that graph (what
// filter 6 proved removable, removed), checks it and times it like every other rewrite.
InefficiencyReport analyseInefficiency(const TaskSpec& spec, const InefficiencyOptions& options,
                                       const DeviceCeilings& ceilings, const RedundancyReport* redundancy = nullptr);

// {"kind": "kernelsieve.inefficiency", device, ceilings, options, tasks: [...]}.
std::string inefficiencyToJson(const std::vector<InefficiencyReport>& reports, const DeviceCeilings& ceilings,
                               const InefficiencyOptions& options);

} // namespace ks
