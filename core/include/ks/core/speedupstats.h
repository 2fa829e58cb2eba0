// SPDX-License-Identifier: MIT
#pragma once
// Uncertainty of a speedup from the timed samples of the baseline and of a variant: the ratio of
// medians with a bootstrap 95 % confidence interval (both sample sets resampled), and a
// Mann-Whitney U test between them. A variant whose interval contains 1 shows "no measurable
// difference" rather than a speedup it may not have.

#include <cstdint>
#include <limits>
#include <vector>

namespace ks {

struct SpeedupStats {
    static constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
    double ratio = NaN;  // median(baseline) / median(variant)
    double lo = NaN, hi = NaN; // bootstrap percentile interval at `level`
    double level = 0.95;
    double pValue = NaN; // Mann-Whitney U, two-sided
    int resamples = 0;
    bool measured() const { return lo == lo && hi == hi; }
    // The interval holds 1: the data do not show the variant faster or slower.
    bool noMeasurableDifference() const { return measured() && lo <= 1.0 && hi >= 1.0; }
};

// NaN for an empty set.
double medianOf(std::vector<double> v);

// The ratio and its interval; unmeasured (NaN) when either set has fewer than 2 samples or a
// median is not positive. Deterministic for a given `seed`, so a results file can be re-derived.
SpeedupStats speedupStats(const std::vector<double>& baselineMs, const std::vector<double>& variantMs,
                          int resamples = 2000, uint64_t seed = 0x6b73u, double level = 0.95);

// Two-sided p-value of the Mann-Whitney U test (scipy's method="auto": exact when both sets are
// smaller than 8 and have no ties, else the normal approximation with tie and continuity
// corrections). NaN when a set is empty.
double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

} // namespace ks
