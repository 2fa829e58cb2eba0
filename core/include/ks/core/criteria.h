// SPDX-License-Identifier: MIT
#pragma once
// The filter criteria, their thresholds and the flag rules. Flags are never stored as truth:
// they are derived from stored metrics, so re-thresholding never needs a re-run.

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// Filters 1-4 are robust-kbench's statistics of the task's outputs; 5 and 6 are ours, measured on
// the task's graph (docs/inefficiency.md, docs/redundancy.md). Zeros pass is derived from filter
// 1's stored range and the per-seed means (KernelBench issue 165: an all-zero or constant output
// passes the benchmark's own allclose on several level-1 tasks), so it needs no run of its own.
enum class Criterion {
    OutputRange,
    OutputStd,
    OutputAxes,
    InputImpact,
    BaselineInefficiency,
    RedundantComputation,
    ZerosPass
};
inline constexpr int CriterionCount = 7;
inline constexpr int StatisticalCriterionCount = 4; // OutputRange..InputImpact: one `metric < t` each

inline bool isStatistical(Criterion c) { return static_cast<int>(c) < StatisticalCriterionCount; }

struct CriterionInfo {
    Criterion criterion;
    const char* key;          // JSON/CSV key, robust-kbench style: "output_range"
    const char* label;        // column title: "Output Range"
    const char* metricLabel;  // what TaskResult::metric() is: "max |value|"
    const char* description;  // one line for tooltips and --help
};
std::span<const CriterionInfo> criteria();
const CriterionInfo& criterionInfo(Criterion c);
std::optional<Criterion> criterionFromKey(const std::string& key);

// Every editable threshold. The four statistical criteria have one each, keyed like the
// criterion (so profiles and results files written before filters 5-6 still read); baseline
// inefficiency has three (any one flags) and redundant computation one. Zeros pass has two that
// are not bounds on a metric but the validation tolerance it checks against: allclose's atol and
// rtol (the flag rule there is "tolerance used <= 1", see TaskResult::zerosPass()).
enum class Threshold {
    OutputRange,
    OutputStd,
    OutputAxes,
    InputImpact,
    BaselineRewriteSpeedup, // flagged when the best equal rewrite is at least this much faster
    BaselineEfficiency,     // flagged when roofline floor / eager time is below this
    BaselinePasses,         // flagged when memory-bound and the eager graph makes at least this many passes
    RedundantFlopFraction,  // flagged when redundant ops exist and take at least this share of FLOPs
    ZerosPassAtol,          // allclose's atol: out passes where |out - ref| <= atol + rtol * |ref|
    ZerosPassRtol           // ... and its rtol
};
inline constexpr int ThresholdCount = 10;
inline bool isTolerance(Threshold t) {
    return t == Threshold::ZerosPassAtol || t == Threshold::ZerosPassRtol;
}

struct ThresholdInfo {
    Threshold threshold;
    Criterion criterion;
    const char* key;         // profile / results / --threshold key
    const char* shortLabel;  // threshold panel: "Range", "Rewrite"
    const char* metricLabel; // the quantity compared: "max |value|", "best rewrite speedup"
    bool below;              // flagged iff metric < t (true) or metric >= t (false)
    const char* description; // one line for tooltips
    double defaultValue;     // the robust-kbench profile
    // Every threshold is a finite number >= 0 (a negative bound or NaN silently switched a filter
    // off); shares and ratios that cannot exceed 1 say so here.
    double maxValue = std::numeric_limits<double>::max();
};
std::span<const ThresholdInfo> thresholdInfos();
const ThresholdInfo& thresholdInfo(Threshold t);
std::optional<Threshold> thresholdFromKey(std::string_view key);
// The thresholds of one criterion, in table order (the first is its primary one).
std::vector<Threshold> thresholdsOf(Criterion c);
// "output_range < 0.01", "baseline_rewrite_speedup >= 2": the rule as text, for tables and
// tooltips. A tolerance is a setting, not a bound: "zeros_pass_atol = 0.01".
std::string thresholdRuleText(Threshold t, double value);

// Flag rule shared by all four statistical filters: flagged iff metric < threshold, compared in
// float32 as torch compares a float32 tensor with a Python scalar (robust-kbench's code), so an
// output of exactly 0.01f is outside the open interval (-0.01, 0.01) there and here.
// NaN (a size-1 axis, a NaN output, a single seed) never passes `<`.
inline bool flaggedBelow(double metric, double threshold) {
    return static_cast<float>(metric) < static_cast<float>(threshold);
}
// Filters 5 and 6 flag at or above a bound (a speedup, a pass count, a FLOP share). They are our
// own measurements, so no float32 emulation; NaN never flags.
inline bool flaggedAtLeast(double metric, double threshold) { return metric >= threshold; }

// How close to its threshold a metric must be to be marked borderline (relative): KernelBench-
// scale noise moves metrics by a few per cent between runs and seed counts (L2-38's axes metric is
// 0.0092-0.0103 around 0.01 with 5 seeds), so a verdict that close is not one to trust.
inline constexpr double DefaultBorderlineMargin = 0.1;
inline constexpr const char* BorderlineMarginKey = "borderline_margin";

struct Thresholds {
    std::string profile = "robust-kbench";
    std::map<std::string, double> values; // threshold key -> value
    // Stored beside the thresholds (key BorderlineMarginKey) in profiles and results files; files
    // without it read the default. 0 turns the borderline mark off.
    double borderlineMargin = DefaultBorderlineMargin;

    static Thresholds defaults();
    double value(Threshold t) const;
    void set(Threshold t, double v);
    // The criterion's primary threshold (the only one of filters 1-4).
    double value(Criterion c) const;
    void set(Criterion c, double v);
    bool operator==(const Thresholds&) const = default;
};

// Why `value` is not usable for threshold `key` (a threshold key or BorderlineMarginKey):
// "must be a finite number in [0, 1], got nan"; empty when it is. Profiles, results files and
// --threshold all check through this, so a NaN or negative bound is refused wherever it comes from.
std::string thresholdValueProblem(std::string_view key, double value);
// One --threshold NAME=VALUE (export-robust-kbench and filter share the syntax): sets it in `t`,
// or throws ks::Error naming the option, the threshold and the value.
void applyThresholdOverride(Thresholds& t, const std::string& nameEqualsValue);

// Empty for seeds >= 2; else why the std-based filters cannot flag (callers say where the count
// came from): the unbiased std
// of one sample is NaN, and NaN never passes `< t`, so output_std and input_impact say "no flag"
// for every task and output_axes loses its seed axis. We warn rather than refuse because one seed
// still gives a true output_range and a quick smoke run over a large suite is a fair use.
std::string seedCountWarning(long long seeds);

// A criterion's whole flag rule under `t`, as text: "output_range < 0.01"; "baseline_rewrite_speedup
// >= 2 or baseline_efficiency < 0.05 or (memory-bound and baseline_passes >= 2)".
std::string criterionRuleText(Criterion c, const Thresholds& t);

// A threshold profile file: {"kind":"kernelsieve.profile","name":..,"thresholds":{key:value}}.
// Keys missing from the file keep their defaults (profiles written before filters 5-6 still
// load); unknown keys, non-numeric or out-of-range values (thresholdValueProblem) are errors
// naming the file. Throws ks::Error.
Thresholds parseProfile(const std::string& jsonText, const std::string& path);
std::string profileToJson(const Thresholds& t, const std::string& description = {});
// Built-in profiles by name ("robust-kbench", "strict"); empty if unknown.
std::optional<Thresholds> builtinProfile(const std::string& name);
std::vector<std::string> builtinProfileNames();

} // namespace ks
