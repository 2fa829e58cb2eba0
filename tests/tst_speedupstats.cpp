// SPDX-License-Identifier: MIT
// Speedup statistics (issue 12): the Mann-Whitney U test against hand-computed cases, the
// bootstrap interval of the ratio of medians by its properties and its coverage.
#include "ks/core/speedupstats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace ks;

TEST(MannWhitney, ExactForSmallSetsWithoutTies) {
    // All 20 arrangements of 3 + 3 values: U = 0 has one, so two-sided p = 2/20.
    EXPECT_DOUBLE_EQ(mannWhitneyP({1, 2, 3}, {4, 5, 6}), 0.1);
    EXPECT_DOUBLE_EQ(mannWhitneyP({4, 5, 6}, {1, 2, 3}), 0.1);
    // U = 3: P(U <= 3) = 7/20, so p = 0.7.
    EXPECT_DOUBLE_EQ(mannWhitneyP({1, 3, 5}, {2, 4, 6}), 0.7);
    EXPECT_DOUBLE_EQ(mannWhitneyP({1}, {2}), 1.0);
}

TEST(MannWhitney, NormalApproximationWithTieAndContinuityCorrections) {
    std::vector<double> a, b;
    for (int i = 0; i < 20; ++i) {
        a.push_back(i);
        b.push_back(i + 10.5);
    }
    // U = 45 of 400 pairs; z = (|45 - 200| - 0.5) / sqrt(400 * 41 / 12).
    EXPECT_NEAR(mannWhitneyP(a, b), 2.9248649327369012e-05, 1e-12);
    // Ties: 1,1,2,2,3 against 2,3,3,4,4,5,6,7 (computed by pair counting with the tie term).
    EXPECT_NEAR(mannWhitneyP({1, 1, 2, 2, 3}, {2, 3, 3, 4, 4, 5, 6, 7}), 0.01431618992195147, 1e-12);
    EXPECT_DOUBLE_EQ(mannWhitneyP({2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2, 2}), 1.0); // all equal
    EXPECT_TRUE(std::isnan(mannWhitneyP({}, {1})));
}

TEST(SpeedupStats, MedianOf) {
    EXPECT_DOUBLE_EQ(medianOf({3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(medianOf({4, 1, 3, 2}), 2.5);
    EXPECT_TRUE(std::isnan(medianOf({})));
}

TEST(SpeedupStats, ExactHalvingGivesTwoWithANarrowInterval) {
    std::mt19937_64 g(1);
    std::lognormal_distribution<double> d(0.0, 0.05);
    std::vector<double> base, var;
    for (int i = 0; i < 400; ++i) {
        base.push_back(1.0 * d(g));
        var.push_back(0.5 * d(g));
    }
    const SpeedupStats s = speedupStats(base, var);
    ASSERT_TRUE(s.measured());
    EXPECT_NEAR(s.ratio, 2.0, 0.02);
    EXPECT_LT(s.lo, s.ratio);
    EXPECT_GT(s.hi, s.ratio);
    EXPECT_GT(s.lo, 1.9);
    EXPECT_LT(s.hi, 2.1);
    EXPECT_FALSE(s.noMeasurableDifference());
    EXPECT_LT(s.pValue, 1e-10);
    EXPECT_EQ(s.resamples, 2000);
    // Deterministic for a seed: a results file can be re-derived.
    const SpeedupStats again = speedupStats(base, var);
    EXPECT_DOUBLE_EQ(again.lo, s.lo);
    EXPECT_DOUBLE_EQ(again.hi, s.hi);
}

TEST(SpeedupStats, SameDistributionShowsNoMeasurableDifference) {
    std::mt19937_64 g(2);
    std::normal_distribution<double> d(1.0, 0.1);
    std::vector<double> base, var;
    for (int i = 0; i < 300; ++i) {
        base.push_back(d(g));
        var.push_back(d(g));
    }
    const SpeedupStats s = speedupStats(base, var);
    EXPECT_TRUE(s.noMeasurableDifference()) << s.lo << " " << s.hi;
    EXPECT_GT(s.pValue, 0.01);
}

TEST(SpeedupStats, TooFewSamplesAreNotMeasured) {
    EXPECT_FALSE(speedupStats({1.0}, {0.5, 0.6}).measured());
    EXPECT_FALSE(speedupStats({0, 0, 0}, {0.5, 0.6}).measured());
}

// The 95 % interval holds the true ratio of medians in about 95 % of experiments (200 runs of
// 100 + 100 samples from skewed timing-like distributions; binomial 95 % band 90.5 %-98.5 %).
TEST(SpeedupStats, IntervalCoversTheTrueRatio) {
    std::mt19937_64 g(3);
    const double sigma = 0.2;
    std::lognormal_distribution<double> d(0.0, sigma); // median 1
    int covered = 0;
    const int experiments = 200;
    for (int e = 0; e < experiments; ++e) {
        std::vector<double> base, var;
        for (int i = 0; i < 100; ++i) {
            base.push_back(1.5 * d(g));
            var.push_back(1.0 * d(g));
        }
        const SpeedupStats s = speedupStats(base, var, 1000, static_cast<uint64_t>(e));
        covered += s.lo <= 1.5 && 1.5 <= s.hi;
    }
    EXPECT_GE(covered, 181) << covered << " of " << experiments;
    EXPECT_LE(covered, 197) << covered << " of " << experiments;
}
