// SPDX-License-Identifier: MIT
#pragma once
// Kernel validation + timing results (`kernelsieve-cli bench` / `validate`), as value structs with
// a versioned JSON form ("kernelsieve.bench"). No torch, no Qt: the GUI reads these directly.

#include "ks/core/results.h"
#include "ks/core/speedupstats.h"

#include <map>
#include <string>
#include <vector>

namespace ks {

inline constexpr int BenchSchemaVersion = 1;

struct TimingStats {
    int warmup = 0, runs = 0;
    bool l2Flush = false;
    bool hideLaunchLatency = false; // settings: a spin kernel was queued before each timed run
    double spinUs = 0;              // per task: that spin's length (0: launch latency counted)
    double medianMs = NaN, meanMs = NaN, minMs = NaN, q1Ms = NaN, q3Ms = NaN;
    std::vector<double> samplesMs; // up to a few hundred evenly spaced samples, for distribution plots
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
    std::vector<VariantResult> variants;
};

struct BenchRun {
    std::string toolVersion, created, device, deviceName, driver, libtorchVersion, cudaVersion, preset;
    std::string smClock, memClock; // as read at the start, if known
    double copyBandwidthGBs = NaN;  // measured device-to-device copy (read + write)
    double fp32PeakTflops = NaN;    // measured
    TimingStats settings;           // warmup / runs / l2Flush used
    std::map<std::string, int64_t> dims; // task dims the run set (`--dim`); empty: the suite's shapes
    std::vector<TaskBench> tasks;
};

std::string benchToJson(const BenchRun& b, int indent = 1);
BenchRun benchFromJson(const std::string& text, const std::string& path); // throws ks::Error

} // namespace ks
