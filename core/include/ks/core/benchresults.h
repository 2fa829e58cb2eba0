// SPDX-License-Identifier: MIT
#pragma once
// Kernel validation + timing results (`kernelsieve-cli bench` / `validate`), as value structs with
// a versioned JSON form ("kernelsieve.bench"). No torch, no Qt: the GUI reads these directly.

#include "ks/core/results.h"
#include "ks/core/speedupstats.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ks {

inline constexpr int BenchSchemaVersion = 1;

// The SM clock and the driver's clock-event (throttle) reasons read through NVML before and after
// one timed block. A block whose clock moved by more than ClockDriftLimit is `moved`.
inline constexpr double ClockDriftLimit = 0.03;
struct ClockBlock {
    double smMhzBefore = NaN, smMhzAfter = NaN;
    uint64_t reasonsBefore = 0, reasonsAfter = 0; // nvmlClocksEventReasons bit masks
    bool moved = false;
};
// "GpuIdle", "SwPowerCap", "HwSlowdown", ... for the bits of an NVML reason mask (unknown bits as hex).
std::vector<std::string> clockReasonNames(uint64_t mask);
// Whether the clock moved across a block: both readings known and |after - before| > limit * before.
bool clockMoved(double beforeMhz, double afterMhz, double limit = ClockDriftLimit);

struct TimingStats {
    int warmup = 0, runs = 0;
    bool l2Flush = false;
    bool hideLaunchLatency = false; // settings: a spin kernel was queued before each timed run
    double spinUs = 0;              // per task: that spin's length (0: launch latency counted)
    double medianMs = NaN, meanMs = NaN, minMs = NaN, q1Ms = NaN, q3Ms = NaN;
    std::vector<double> samplesMs; // up to a few hundred evenly spaced samples, for distribution plots
    // Interleaving (issue 12): the runs were split into `blocks` blocks alternating with the other
    // contenders of the same worker (baselines and variant: A/B/B/A...), so drift hits all alike.
    // 0 in files written before that.
    int blocks = 0;
    std::string clockSource;             // "nvml", or "unavailable: why" (empty in older files)
    std::vector<ClockBlock> clockBlocks; // one per block, when NVML could be read
    int movedBlocks() const;
    // Over the clock blocks: the lowest and highest SM clock read (NaN without readings) and
    // every clock-event reason bit seen.
    struct ClockSpan {
        double loMhz = NaN, hiMhz = NaN;
        uint64_t reasons = 0;
    };
    ClockSpan clockSpan() const;
    double iqrMs() const { return q3Ms - q1Ms; }
};

struct ValidationResult {
    bool run = false;
    bool passed = false;
    int seeds = 0;           // random seeds checked
    double atol = 1e-5, rtol = 1e-4;
    double maxAbsErr = NaN, maxRelErr = NaN;
    std::vector<int64_t> firstMismatch; // index of the first failing element, if any
    std::vector<std::string> failures;  // one line per failed check: "seed 17: ...", "edge misaligned: ..."
    std::vector<std::string> checks;    // names of the checks that ran (seeds, edge cases, guards)
};

// One guard that fired for a variant: which (`stale-memory`, `replay`, `async-work`, `input-write`,
// `input-read-after-return`, `out-of-bounds`, `precision`, `library`, `impossible-speed`) and
// what was seen. `library` is informational; every other guard makes the verdict a cheat.
struct GuardHit {
    std::string guard, detail;
};

// A kernel written by someone else (`validate|bench --kernels`): where it came from, how it was
// compiled and called. Absent (`format` empty) for the built-in variants.
struct ExternalInfo {
    std::string format;   // "torch-extension" | "modelnew" | "robust-kbench"
    std::string file;     // the kernel file as found
    std::string function; // the bound host function called
    std::vector<std::string> args; // the call plan, readable: "input x", "param weight", "1e-05"
    std::string expect;   // what the corpus manifest expects (never used for the verdict)
    std::string sourceHash;        // SHA-256 key of the compile cache
    bool compiled = false, cacheHit = false;
    double compileSeconds = NaN;
    std::string compileLog;        // the compiler's messages (its tail), on failure mostly
    std::vector<std::string> kernelNames; // CUDA kernels a profiled call launched
    double precisionRatio = NaN;   // kernel error vs float64 / eager float32 error (floored)
};

// A speedup against one baseline, from samples timed interleaved in the same worker.
struct BaselineComparison {
    std::string baseline;        // "eager" (also VariantResult::speedup, for older readers) | "compiled" | "graph"
    double baselineMedianMs = NaN;
    SpeedupStats stats;          // ratio = baseline median / variant median, with its interval
};

// A baseline other than eager for one task (issue 12): "compiled", PyTorch Inductor ahead of time
// (torch.export + AOTInductor, loaded with LibTorch's package loader), validated against the
// float64 reference like a variant; "graph", the eager forward captured once in a CUDA graph and
// replayed (launch overhead gone). `error` says why there is no timing (export, compile, capture).
struct BaselineRun {
    std::string kind;
    TimingStats timing;
    std::string error;
    ValidationResult validation;      // compiled: against the float64 reference; graph: against eager
    SpeedupStats vsEager;             // eager median / this median, interleaved in the same worker
    double compileSeconds = NaN;      // compiled: the export + compile (0 for a cache hit)
    bool cacheHit = false;
    std::string cacheKey, compileLog; // compiled: the cache entry and the compiler's last words
    bool usable() const { return error.empty() && timing.medianMs == timing.medianMs; }
};
std::string baselineLabel(const std::string& kind); // "eager (LibTorch)", "compiled (AOTInductor)", ...

struct VariantResult {
    std::string name, summary;
    int version = 0;
    bool shortcut = false;
    std::string unsupported; // non-empty: why it was not run for this shape
    std::string error;       // CUDA error / crash, if any
    ValidationResult validation;
    TimingStats timing;
    double speedup = NaN;     // baseline median / variant median
    // Its bootstrap 95 % interval and the Mann-Whitney p-value, from the timed samples of the
    // baseline and of this variant (absent, NaN, in files written before they were recorded).
    SpeedupStats speedupStats;
    std::vector<BaselineComparison> vs; // against each baseline of the run, timed in the variant's own worker
    // The comparison with `kind` ("eager" gives speedup / speedupStats); nullptr if none.
    const BaselineComparison* versus(const std::string& kind) const;
    double speedupVs(const std::string& kind) const; // NaN when not measured
    SpeedupStats statsVs(const std::string& kind) const;
    double gbps = NaN;        // minimum bytes / median time
    double pctCopyBandwidth = NaN;
    bool impossible = false;  // implied bandwidth/FLOP rate above the measured ceiling
    std::string impossibleWhy;
    std::vector<GuardHit> guardHits;
    ExternalInfo external;
    bool isExternal() const { return !external.format.empty(); }
    bool hasGuard(const std::string& g) const;
};

// One word for a variant, first match wins: "refused", "compile error", "failed", "cheat",
// "unsupported", "not run", "invalid", "valid" (see docs/external-kernels.md). `verdictDetail` adds the guards or the first failure.
std::string variantVerdict(const VariantResult& v);
std::string verdictDetail(const VariantResult& v);

struct TaskBench {
    std::string taskId, taskName, op;
    std::vector<int64_t> shape;   // the op's main sizes at this preset
    double minBytes = NaN, flops = NaN;
    TimingStats baseline;         // LibTorch eager on the same task and inputs
    std::string baselineError;
    std::vector<BaselineRun> otherBaselines; // compiled, graph: those the run asked for
    const BaselineRun* baselineOf(const std::string& kind) const;
    std::vector<VariantResult> variants;
    // `--devices`: the GPU every job of this task ran on (BenchGpu::id); empty on a one-GPU run.
    std::string gpu;
};

// One GPU of a `--devices` run, with the ceilings measured on it (its tasks' % of copy bandwidth
// and impossible-speed checks use these).
struct BenchGpu {
    std::string id;   // the ordinal (--devices), as the run's tasks name it
    std::string visibleId; // what its workers' CUDA_VISIBLE_DEVICES was
    std::string name, smClock, memClock, clockSource;
    double copyBandwidthGBs = NaN, fp32PeakTflops = NaN;
};

struct BenchRun {
    std::string toolVersion, created, device, deviceName, driver, libtorchVersion, cudaVersion, preset;
    std::string smClock, memClock; // as read at the start, if known
    double copyBandwidthGBs = NaN;  // measured device-to-device copy (read + write)
    double fp32PeakTflops = NaN;    // measured
    TimingStats settings;           // warmup / runs / l2Flush used
    std::map<std::string, int64_t> dims; // task dims the run set (`--dim`); empty: the suite's shapes
    // The baselines timed ("eager" first); files written before the compiled baseline: {"eager"}.
    std::vector<std::string> baselines{"eager"};
    std::string clockSource; // NVML for the clock records, or why it could not be read
    // `--devices`: the GPUs the tasks were spread over (the run's device fields are the first's);
    // empty on a one-GPU run.
    std::vector<BenchGpu> gpus;
    // `--shard K/N`: the tasks at positions K-1, K-1+N, ... of the selection (0/0: not sharded).
    int shardIndex = 0, shardCount = 0;
    std::vector<TaskBench> tasks;
};

std::string benchToJson(const BenchRun& b, int indent = 1);
// One row per baseline and variant of every task (`bench --csv`): identity, verdict, timing,
// the speedup over each baseline of the run with its 95 % interval and p-value, the clock
// record. RFC 4180 quoting, CRLF line ends; the columns are named in the header row.
std::string benchToCsv(const BenchRun& b);
BenchRun benchFromJson(const std::string& text, const std::string& path); // throws ks::Error

} // namespace ks
