// SPDX-License-Identifier: MIT
#include "ks/core/speedupstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <utility>

namespace ks {
namespace {

// Number of ways a sample of `m` of `m + n` distinct values has Mann-Whitney U = u, for every u.
std::vector<double> exactUCounts(int m, int n) {
    // f[i][j][u]: arrangements of i values of A and j of B with statistic u (recurrence on the
    // largest value: it belongs to A, adding j to U, or to B, adding nothing).
    const int maxU = m * n;
    std::vector<std::vector<std::vector<double>>> f(
        static_cast<size_t>(m + 1), std::vector<std::vector<double>>(static_cast<size_t>(n + 1), std::vector<double>(static_cast<size_t>(maxU + 1), 0.0)));
    for (int i = 0; i <= m; ++i)
        for (int j = 0; j <= n; ++j) {
            if (i == 0 || j == 0) {
                f[static_cast<size_t>(i)][static_cast<size_t>(j)][0] = 1;
                continue;
            }
            for (int u = 0; u <= i * j; ++u) {
                double c = f[static_cast<size_t>(i)][static_cast<size_t>(j - 1)][static_cast<size_t>(u)];
                if (u >= j) c += f[static_cast<size_t>(i - 1)][static_cast<size_t>(j)][static_cast<size_t>(u - j)];
                f[static_cast<size_t>(i)][static_cast<size_t>(j)][static_cast<size_t>(u)] = c;
            }
        }
    return f[static_cast<size_t>(m)][static_cast<size_t>(n)];
}

} // namespace

double medianOf(std::vector<double> v) {
    if (v.empty()) return SpeedupStats::NaN;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return 0.5 * (lo + hi);
}

double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
    const size_t n1 = a.size(), n2 = b.size();
    if (!n1 || !n2) return SpeedupStats::NaN;
    // Ranks of the pooled values, ties given their average rank.
    std::vector<std::pair<double, int>> all;
    all.reserve(n1 + n2);
    for (double x : a) all.push_back({x, 0});
    for (double x : b) all.push_back({x, 1});
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    const size_t n = all.size();
    double rankSumA = 0, tieTerm = 0;
    bool ties = false;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && all[j + 1].first == all[i].first) ++j;
        const double rank = 0.5 * static_cast<double>(i + j) + 1.0;
        const double t = static_cast<double>(j - i + 1);
        if (t > 1) ties = true;
        tieTerm += t * t * t - t;
        for (size_t k = i; k <= j; ++k)
            if (all[k].second == 0) rankSumA += rank;
        i = j + 1;
    }
    const double u = rankSumA - static_cast<double>(n1) * static_cast<double>(n1 + 1) / 2.0;
    const double mn = static_cast<double>(n1) * static_cast<double>(n2);
    if (n1 < 8 && n2 < 8 && !ties) {
        const auto counts = exactUCounts(static_cast<int>(n1), static_cast<int>(n2));
        const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        const int ui = static_cast<int>(std::lround(u));
        double le = 0, ge = 0;
        for (int k = 0; k < static_cast<int>(counts.size()); ++k) {
            if (k <= ui) le += counts[static_cast<size_t>(k)];
            if (k >= ui) ge += counts[static_cast<size_t>(k)];
        }
        return std::min(1.0, 2.0 * std::min(le, ge) / total);
    }
    const double nn = static_cast<double>(n);
    const double var = mn / 12.0 * ((nn + 1.0) - tieTerm / (nn * (nn - 1.0)));
    if (!(var > 0)) return 1.0; // every value equal
    const double z = std::max(0.0, std::abs(u - mn / 2.0) - 0.5) / std::sqrt(var);
    return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

SpeedupStats speedupStats(const std::vector<double>& baselineMs, const std::vector<double>& variantMs, int resamples,
                          uint64_t seed, double level) {
    SpeedupStats s;
    s.level = level;
    if (baselineMs.size() < 2 || variantMs.size() < 2) return s;
    const double mb = medianOf(baselineMs), mv = medianOf(variantMs);
    if (!(mb > 0) || !(mv > 0)) return s;
    s.ratio = mb / mv;
    s.pValue = mannWhitneyP(baselineMs, variantMs);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> pickB(0, baselineMs.size() - 1), pickV(0, variantMs.size() - 1);
    std::vector<double> rb(baselineMs.size()), rv(variantMs.size()), ratios;
    ratios.reserve(static_cast<size_t>(resamples));
    for (int r = 0; r < resamples; ++r) {
        for (auto& x : rb) x = baselineMs[pickB(rng)];
        for (auto& x : rv) x = variantMs[pickV(rng)];
        const double v = medianOf(rv);
        if (v > 0) ratios.push_back(medianOf(rb) / v);
    }
    if (ratios.size() < 2) return s;
    std::sort(ratios.begin(), ratios.end());
    auto at = [&](double q) {
        const double pos = q * static_cast<double>(ratios.size() - 1);
        const size_t lo = static_cast<size_t>(std::floor(pos));
        const size_t hi = std::min(lo + 1, ratios.size() - 1);
        return ratios[lo] + (ratios[hi] - ratios[lo]) * (pos - static_cast<double>(lo));
    };
    s.lo = at((1.0 - level) / 2.0);
    s.hi = at(1.0 - (1.0 - level) / 2.0);
    s.resamples = static_cast<int>(ratios.size());
    return s;
}

} // namespace ks
