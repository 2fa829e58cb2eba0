// SPDX-License-Identifier: MIT
#pragma once
// The filter criteria, their thresholds and the flag rule. Flags are never stored as truth:
// they are derived from stored metrics, so re-thresholding never needs a re-run.

#include <cmath>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ks {

enum class Criterion { OutputRange, OutputStd, OutputAxes, InputImpact };
inline constexpr int CriterionCount = 4;

struct CriterionInfo {
    Criterion criterion;
    const char* key;          // JSON/CSV key, robust-kbench style: "output_range"
    const char* label;        // column title: "Output Range"
    const char* metricLabel;  // what the metric is: "max |value|"
    const char* description;  // one line for tooltips and --help
    double defaultThreshold;  // robust-kbench-compatible profile
};
std::span<const CriterionInfo> criteria();
const CriterionInfo& criterionInfo(Criterion c);
std::optional<Criterion> criterionFromKey(const std::string& key);

// Flag rule shared by all four statistical filters: flagged iff metric < threshold, compared in
// float32 as torch compares a float32 tensor with a Python scalar (robust-kbench's code), so an
// output of exactly 0.01f is outside the open interval (-0.01, 0.01) there and here.
// NaN (a size-1 axis, a NaN output, a single seed) never passes `<`.
inline bool flaggedBelow(double metric, double threshold) {
    return static_cast<float>(metric) < static_cast<float>(threshold);
}

struct Thresholds {
    std::string profile = "robust-kbench";
    std::map<std::string, double> values; // key -> threshold

    static Thresholds defaults();
    double value(Criterion c) const;
    void set(Criterion c, double v);
    bool operator==(const Thresholds&) const = default;
};

// A threshold profile file: {"kind":"kernelsieve.profile","name":..,"thresholds":{key:value}}.
// Unknown keys and non-numeric values are errors naming the file. Throws ks::Error.
Thresholds parseProfile(const std::string& jsonText, const std::string& path);
std::string profileToJson(const Thresholds& t, const std::string& description = {});
// Built-in profiles by name ("robust-kbench", "strict"); empty if unknown.
std::optional<Thresholds> builtinProfile(const std::string& name);
std::vector<std::string> builtinProfileNames();

} // namespace ks
