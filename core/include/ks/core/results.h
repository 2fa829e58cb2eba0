// SPDX-License-Identifier: MIT
#pragma once
// Results of a filter pass as plain value structs, with a versioned JSON form and CSV export.
// No torch and no Qt: the GUI reads and writes these without loading the engine.

#include "ks/core/criteria.h"
#include "ks/core/inefficiency.h"
#include "ks/core/redundancy.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <map>
#include <string>
#include <vector>

namespace ks {

inline constexpr int ResultsSchemaVersion = 1;
inline constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

struct Histogram {
    double lo = 0.0, hi = 0.0;        // bin edges span [lo, hi]
    std::vector<uint64_t> counts;     // equal-width bins
    uint64_t underflow = 0, overflow = 0, nonFinite = 0;
    uint64_t total() const;
    bool empty() const { return counts.empty(); }
};

struct RangeMetrics {
    bool run = false;
    double maxAbs = NaN; // the metric: flagged iff maxAbs < threshold (NaN if any value is NaN)
    double min = NaN, max = NaN;
    uint64_t nonFinite = 0;
};

struct SpreadMetrics { // std over seeds, per element, unbiased
    bool run = false;
    double maxStd = NaN; // the metric: flagged iff maxStd < threshold
    double meanStd = NaN;
};

struct AxesMetrics {
    bool run = false;
    // perAxis[a] = max over the stacked [S, *out] tensor of std(all, dim=a); a = 0 is the seed axis.
    std::vector<double> perAxis;
    // The metric: the smallest per-axis value, NaN-aware (an axis with NaN never passes).
    double minValue() const;
    int minAxis() const; // -1 if none
};

struct SeedStat {
    int64_t seed = 0;
    double mean = NaN, std = NaN, min = NaN, max = NaN;
};

// The share of allclose's tolerance that a constant output `c` uses at its worst element, when the
// reference's values span [lo, hi]: max over those values x of |c - x| / (atol + rtol * |x|),
// evaluated in float32 as torch.allclose evaluates a float32 output. <= 1: `c` passes everywhere.
// NaN if lo, hi or c is not finite. Why three candidates suffice is in results.cpp.
double toleranceUsed(double lo, double hi, double c, double atol, double rtol);

// A metric within Thresholds::borderlineMargin of its threshold: the verdict of that rule would
// change if the threshold moved by that share either way. For zeros pass the bound is 1 and the
// metric the tolerance used (scaling atol and rtol together by k scales it by 1/k).
// Filter 5's efficiency and passes rules also hang on a measured test with no threshold of its
// own: a task is launch-bound when its eager time is at most 2 x launches x one launch. When the
// eager time (metric) is within the margin of that limit (bound) and the rule's verdict flips
// with the test, the hit names the rule and sets launchBoundTest: on the H200 such tasks (level-3
// EfficientNet-B0, ShuffleNet, the Mamba2 final state) changed verdicts from run to run.
// And where the eager forward's CUDA-graph replay was measured: a rule whose verdict on the
// replayed GPU time (onGraphReplay) differs from its verdict on the eager time depends on the
// host's dispatch, which moved such verdicts between two runs on one H200 (MobileNetV2 eager 2.03
// and 3.71 ms). That hit sets hostDispatch; metric is the eager time, bound the replayed one.
struct BorderlineHit {
    Threshold threshold; // zeros pass: ZerosPassAtol, standing for both tolerances
    double metric;
    double bound;
    bool launchBoundTest = false;
    bool hostDispatch = false;
};
// "borderline: 0.0098 is within 10% of 0.01" (a tooltip line; the zeros pass names its metric).
std::string borderlineText(const BorderlineHit& hit, double margin);

enum class TaskStatus { Ok, Error, Skipped };
const char* taskStatusName(TaskStatus s);

struct TaskResult {
    // identity (copied from the spec so a results file stands alone)
    std::string id, name, category, description;
    int level = 0, number = 0;
    std::vector<std::string> tags;
    std::string source;  // TorchScript source shown to the user
    std::string specJson; // the task spec as loaded (JSON text)

    TaskStatus status = TaskStatus::Ok;
    std::string error; // names the task and the cause

    std::vector<int64_t> outputShape;
    std::string outputDtype;
    int seeds = 0;

    RangeMetrics range;
    SpreadMetrics outputStd;
    AxesMetrics axes;
    SpreadMetrics inputImpact;

    Histogram valueHistogram; // output values, all seeds pooled
    Histogram stdHistogram;   // per-element std across seeds
    std::vector<SeedStat> seedStats;

    double wallSeconds = 0.0;   // whole task, both passes
    double runMsMedian = NaN;   // one forward call, median over the calls made
    int64_t peakMemoryBytes = 0; // device peak during this task (CUDA), 0 if unknown
    // Where the time went, seconds: "statistics" (filters 1-4, both passes), "redundancy",
    // "inefficiency" (wall); "draw" (drawing the operands, summed over the host threads that drew
    // them ahead), "draw_wait" (the passes waiting for a draw), "upload" (host -> device). Empty in
    // files written before they were recorded.
    std::map<std::string, double> phaseSeconds;
    int operandDraws = 0;          // operand sets drawn (a seed's inputs + params, or params alone)
    int operandReuses = 0;         // requests served by a set drawn before
    int operandRedraws = 0;        // sets drawn again (the host budget had not kept them)
    int operandDeviceReuses = 0;   // of the reuses, those served by a device copy kept after an upload
    int64_t peakOperandDeviceKeptBytes = 0; // most bytes of those device copies at once
    int64_t operandUploadBytes = 0;         // operand bytes copied host -> device (CPU runs: 0)
    // The input-impact pass ran after the output pass, not seed by seed beside it: both passes'
    // running moments would not fit on the device at once (EngineOptions::impactBesidePass1).
    bool impactAfterOutputPass = false;
    int64_t operandSetBytes = 0;   // one seed's inputs + params on the host
    int64_t peakOperandHostBytes = 0; // most operand bytes held on the host at once
    int64_t peakHostBytes = 0;     // the worker's peak resident memory (VmHWM), 0 if unknown
    bool peakHostPerTask = false;  // true: reset at the task's start, so it is this task's peak
    // CUDA: page-locked host blocks the pinned allocator had cached, returned to the system after
    // the task because they exceeded max(1 GiB, half the task's host budget); 0 when kept.
    int64_t pinnedCacheFreedBytes = 0;
    // At the task's end (after that trim), 0 if unknown: the worker's resident memory by kind
    // (anonymous: heap, page-locked blocks, libraries' allocations; file-backed: mapped library
    // pages), and the page-locked bytes the pinned allocator holds, of them in use by the
    // operands of tasks drawn ahead (CUDA). What a long run's worker keeps from task to task.
    int64_t rssAnonBytes = 0;
    int64_t rssFileBytes = 0;
    int64_t pinnedHeldBytes = 0;
    int64_t pinnedInUseBytes = 0;
    // At the task's end (CUDA): the device memory the caching allocator holds, in use or cached
    // for the next task. A capture cannot use the cached part (lease 15), other workers on the
    // GPU cannot either.
    int64_t deviceReservedBytes = 0;
    // `filter --devices`: the GPU (ordinal) whose worker ran it; empty on a one-device run.
    std::string gpu;

    // Filters 5 and 6 (absent: not run, e.g. results from before they existed or a run without
    // them). A report whose `error` is set counts as not run, with that error.
    std::optional<InefficiencyReport> inefficiency;
    std::optional<RedundancyReport> redundancy;

    // The scalar behind the flag (criterionInfo(c).metricLabel): filters 1-4 their statistic,
    // filter 5 the best equal rewrite speedup (1 if none), filter 6 the redundant FLOP fraction,
    // zeros pass the tolerance used (flagged at <= 1). NaN when not run. Only zeros pass depends
    // on the thresholds (its tolerances): the one-argument form takes the defaults.
    double metric(Criterion c, const Thresholds& t) const;
    double metric(Criterion c) const;
    // The quantity compared with threshold `th`: filter 5 has one per rule (best rewrite speedup,
    // efficiency, passes). NaN when not run and for the two tolerances, which bound no metric.
    double thresholdMetric(Threshold th) const;
    // Zeros pass: the smaller tolerance used of the all-zero output (from max |value|) and of the
    // constant mean output (from min, max and the mean of the per-seed means). NaN when the
    // outputs hold NaN or infinities (never flagged) or the range was not run.
    double zerosPass(const Thresholds& t) const;
    double constantMean() const; // mean of all outputs over all seeds; NaN without seed stats
    // Every rule whose metric is borderline under `t`, in threshold order; empty when the margin is
    // 0.
    std::vector<BorderlineHit> borderline(const Thresholds& t) const;
    bool criterionRun(Criterion c) const;
    // The error of the analysis behind a criterion of filters 5-6, else empty.
    std::string criterionError(Criterion c) const;
    bool flagged(Criterion c, const Thresholds& t) const; // false unless run
    bool anyFlag(const Thresholds& t) const;
};

struct RunInfo {
    std::string toolVersion;
    std::string created; // ISO 8601 UTC
    std::string suite;
    std::string preset;
    std::string device; // "cuda" | "cpu"
    std::string deviceName;
    std::string driver;
    std::string libtorchVersion;
    std::string cudaVersion;
    std::string host;
    int seeds = 0;
    int64_t inputImpactParamSeed = 42;
    // How seed s draws its tensors: "cpu-generator, inputs-then-params" (robust-kbench's order) or
    // "device-generator, ..."; empty in results written before this was recorded (then:
    // parameters before inputs, on the run's device).
    std::string seedSemantics;
    double totalSeconds = 0.0;
    int64_t peakMemoryBytes = 0;
    // What LibTorch's CPU allocator was told about transparent huge pages and what the kernel does
    // with the advice, e.g. "THP_MEM_ALLOC_ENABLE=1, kernel: madvise": drawing large operands is
    // 22-28 % faster with them (ks::hugePageEnv). Empty in files written before it was kept.
    std::string hostHugePages;
    bool cancelled = false;
    // What filter 5's roofline used, measured (or read from the cache) once per run.
    std::optional<DeviceCeilings> ceilings;
    // `filter --shard K/N`: this file holds shard `shardIndex` (1-based) of `shardCount`: the
    // tasks at positions K-1, K-1+N, ... of the selected suite (0/0 when not sharded).
    int shardIndex = 0, shardCount = 0;
    // `merge`: the files it was made from, one line each ("FILE: shard K/N, host, created").
    std::vector<std::string> mergedFrom;
    // `filter --devices`: the GPUs the tasks were spread over, one line each ("1: NVIDIA H200,
    // CUDA_VISIBLE_DEVICES=1"); the device fields above are the first worker's.
    std::vector<std::string> gpus;
};

struct RunResults {
    RunInfo run;
    Thresholds thresholds;
    std::vector<TaskResult> tasks;

    const TaskResult* find(const std::string& id) const;
};

// JSON (schema "kernelsieve.results", version ResultsSchemaVersion; the analyses of filters 5-6
// are optional objects per task, so version 1 readers and files stay compatible). Throws ks::Error naming `path`.
std::string resultsToJson(const RunResults& r, int indent = 1);
RunResults resultsFromJson(const std::string& text, const std::string& path);
std::string taskResultToJson(const TaskResult& t, int indent = -1); // one line, for streaming
TaskResult taskResultFromJson(const std::string& text, const std::string& path);
std::string runInfoToJson(const RunInfo& r, int indent = -1);
RunInfo runInfoFromJson(const std::string& text, const std::string& path);

// Atomic file write (temp file, fsync, rename) so a crash or a full disk never leaves half a file:
// the old file stays until the new one is complete. `keepBackup` keeps the replaced file as
// PATH.bak. Throws ks::Error naming the path and the reason (disk full, read-only folder...).
void writeFileAtomic(const std::string& path, const std::string& contents, bool keepBackup = false);
// Empty when `text` nests at most 512 levels of [ and {, else why it is refused. Every core loader
// checks this before parsing (copying or dumping a 200k-level value overflows the stack); readers
// with their own parse, like the GUI's worker protocol, call it first.
std::string jsonNestingProblem(const std::string& text);

// The most readFile takes unless told otherwise: far above any results or bench file we write,
// small enough that a hostile file cannot exhaust memory before we notice.
inline constexpr std::uintmax_t DefaultMaxReadBytes = std::uintmax_t{1} << 30;
// Reads a regular file of at most `maxBytes`. A FIFO, device, socket or folder is refused without
// blocking (a FIFO made `list` hang, /dev/zero was read without end). Throws ks::Error naming the
// path.
std::string readFile(const std::string& path, std::uintmax_t maxBytes = DefaultMaxReadBytes);

// CSV: task_id, task_name, one True/False column per criterion (the seed's Table 1 four, then
// filters 5-6 and zeros pass; empty when not run), then any flag, level, category, status, the
// metric values, the thresholds, the borderline margin and the borderline criteria, error. RFC 4180
// quoting, CRLF line ends. README "File formats" lists columns.
std::string resultsToCsv(const RunResults& r, const Thresholds& t);
std::string csvField(const std::string& s);

// Fixed-width table for the terminal.
std::string resultsToTable(const RunResults& r, const Thresholds& t);

// This build's version (KS_VERSION, the project's).
std::string toolVersion();

} // namespace ks
