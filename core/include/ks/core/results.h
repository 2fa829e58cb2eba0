// SPDX-License-Identifier: MIT
#pragma once
// Results of a filter pass as plain value structs, with a versioned JSON form and CSV export.
// No torch and no Qt: the GUI reads and writes these without loading the engine.

#include "ks/core/criteria.h"

#include <cmath>
#include <cstdint>
#include <limits>
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

    double metric(Criterion c) const;     // the scalar behind the flag
    bool criterionRun(Criterion c) const;
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
    double totalSeconds = 0.0;
    int64_t peakMemoryBytes = 0;
    bool cancelled = false;
};

struct RunResults {
    RunInfo run;
    Thresholds thresholds;
    std::vector<TaskResult> tasks;

    const TaskResult* find(const std::string& id) const;
};

// JSON (schema "kernelsieve.results", version ResultsSchemaVersion). Throws ks::Error naming `path`.
std::string resultsToJson(const RunResults& r, int indent = 1);
RunResults resultsFromJson(const std::string& text, const std::string& path);
std::string taskResultToJson(const TaskResult& t, int indent = -1); // one line, for streaming
TaskResult taskResultFromJson(const std::string& text, const std::string& path);
std::string runInfoToJson(const RunInfo& r, int indent = -1);
RunInfo runInfoFromJson(const std::string& text, const std::string& path);

// Atomic file write (temp file + rename) so a crash never leaves half a file. Throws ks::Error.
void writeFileAtomic(const std::string& path, const std::string& contents);
std::string readFile(const std::string& path); // throws ks::Error naming the path

// CSV: task_id, task_name, one True/False column per criterion (the seed's Table 1), then
// level, category, status, the metric values, the thresholds, error. RFC 4180 quoting.
std::string resultsToCsv(const RunResults& r, const Thresholds& t);
std::string csvField(const std::string& s);

// Fixed-width table for the terminal.
std::string resultsToTable(const RunResults& r, const Thresholds& t);

} // namespace ks
