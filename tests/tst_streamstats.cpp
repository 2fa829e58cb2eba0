// SPDX-License-Identifier: MIT
// Streaming statistics must agree with the direct computation on the stacked [S, *out] tensor.
#include "ks/core/streamstats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace ks;

namespace {

double stackedAxisMetric(const at::Tensor& all, int64_t dim) {
    return all.std(dim, /*unbiased=*/true).max().item<double>();
}

} // namespace

TEST(StreamStats, AgreeWithStackedComputation) {
    at::manual_seed(7);
    const int S = 9;
    std::vector<at::Tensor> outs;
    OutputAccumulator acc(32);
    for (int s = 0; s < S; ++s) {
        // Mean far from zero and a small spread: where a naive sum-of-squares loses precision.
        at::Tensor o = at::randn({6, 5, 4}) * (0.01 * (s + 1)) + 1000.0;
        outs.push_back(o);
        acc.add(o, s);
    }
    TaskResult r;
    acc.finish(r);
    const at::Tensor all = at::stack(outs).to(at::kDouble);
    const double stdMax = stackedAxisMetric(all, 0);
    EXPECT_NEAR(r.outputStd.maxStd, stdMax, 1e-6 * std::max(1.0, stdMax));
    EXPECT_NEAR(r.outputStd.meanStd, all.std(0, true).mean().item<double>(), 1e-6);
    ASSERT_EQ(r.axes.perAxis.size(), 4u);
    for (int64_t a = 0; a < 4; ++a) {
        // Our per-seed axis stats are computed in float32 like the outputs themselves.
        const double want = stackedAxisMetric(at::stack(outs), a);
        EXPECT_NEAR(r.axes.perAxis[static_cast<size_t>(a)], want, 1e-6 * std::max(1.0, want)) << "axis " << a;
    }
    EXPECT_NEAR(r.range.maxAbs, all.abs().max().item<double>(), 1e-9);
    EXPECT_NEAR(r.range.min, all.min().item<double>(), 1e-9);
    EXPECT_EQ(r.valueHistogram.total(), static_cast<uint64_t>(all.numel()));
}

TEST(StreamStats, MomentsMatchTorchStdToHighPrecision) {
    at::manual_seed(3);
    SeedMoments m;
    std::vector<at::Tensor> xs;
    for (int s = 0; s < 100; ++s) {
        xs.push_back(at::rand({17, 3}, at::kDouble) * 5 - 2);
        m.add(xs.back());
    }
    const at::Tensor want = at::stack(xs).std(0, true);
    EXPECT_LT((m.stdev() - want).abs().max().item<double>(), 1e-6);
    EXPECT_EQ(m.count(), 100);
}

TEST(StreamStats, MemoryDoesNotGrowWithSeeds) {
    // The accumulator holds per-element moments only; adding seeds must not add tensors.
    SeedMoments m;
    at::Tensor x = at::randn({1000});
    for (int s = 0; s < 3; ++s) m.add(x + s);
    const auto before = m.stdev().numel();
    for (int s = 0; s < 200; ++s) m.add(x * s);
    EXPECT_EQ(m.stdev().numel(), before);
}

TEST(StreamStats, NaNPropagatesToTheMetric) {
    OutputAccumulator acc;
    acc.add(at::tensor({1.0f, 2.0f}), 0);
    acc.add(at::tensor({1.0f, NAN}), 1);
    TaskResult r;
    acc.finish(r);
    EXPECT_TRUE(std::isnan(r.range.maxAbs));
    EXPECT_TRUE(std::isnan(r.outputStd.maxStd));
    EXPECT_EQ(r.range.nonFinite, 1u);
}

// The value histogram against a direct count: edges from the first seed's finite values (it holds
// a NaN and an inf), later seeds' finite values outside them as under/overflow, every non-finite
// value (NaN, +inf, -inf, a seed of nothing else) counted apart and nowhere else; the per-seed
// summaries and per-axis values as computed directly.
TEST(StreamStats, HistogramLeavesOutNonFiniteValuesAndCountsTheRest) {
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<at::Tensor> seeds = {
        at::tensor({0.0f, 1.0f, 2.0f, NAN, 3.0f, inf}).reshape({2, 3}),
        at::tensor({-5.0f, 0.5f, 9.0f, -inf, 2.5f, 1.5f}).reshape({2, 3}),
        at::tensor({NAN, inf, -inf, NAN, NAN, inf}).reshape({2, 3}),
        at::tensor({1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f}).reshape({2, 3}),
    };
    const int bins = 8;
    OutputAccumulator acc(bins);
    for (size_t s = 0; s < seeds.size(); ++s) acc.add(seeds[s], static_cast<int64_t>(s));
    TaskResult r;
    acc.finish(r);
    const Histogram& h = r.valueHistogram;
    // Edges: the first seed's finite range [0, 3] widened by 2 % of its span.
    EXPECT_DOUBLE_EQ(h.lo, 0.0 - 3.0 * 0.02);
    EXPECT_DOUBLE_EQ(h.hi, 3.0 + 3.0 * 0.02);
    EXPECT_EQ(h.nonFinite, 2u + 1u + 6u);
    EXPECT_EQ(h.underflow, 1u); // -5
    EXPECT_EQ(h.overflow, 1u);  // 9
    std::vector<uint64_t> want(bins, 0);
    const double width = (h.hi - h.lo) / bins;
    for (float v : {0.0f, 1.0f, 2.0f, 3.0f, 0.5f, 2.5f, 1.5f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f})
        ++want[static_cast<size_t>(std::min<double>(bins - 1, std::floor((v - h.lo) / width)))];
    EXPECT_EQ(h.counts, want);
    EXPECT_EQ(h.total(), 24u);
    EXPECT_EQ(r.range.nonFinite, 9u);
    ASSERT_EQ(r.seedStats.size(), seeds.size());
    for (size_t s = 0; s < seeds.size(); ++s) {
        const at::Tensor o = seeds[s].to(at::kDouble);
        const auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
        EXPECT_TRUE(same(r.seedStats[s].mean, o.mean().item<double>())) << s;
        EXPECT_TRUE(same(r.seedStats[s].std, o.std().item<double>())) << s;
        EXPECT_TRUE(same(r.seedStats[s].min, o.min().item<double>())) << s;
        EXPECT_TRUE(same(r.seedStats[s].max, o.max().item<double>())) << s;
        EXPECT_EQ(r.seedStats[s].seed, static_cast<int64_t>(s));
    }
    // NaN in some seed's rows makes each axis value NaN (never flags).
    ASSERT_EQ(r.axes.perAxis.size(), 3u);
    EXPECT_TRUE(std::isnan(r.axes.perAxis[1]));
    EXPECT_TRUE(std::isnan(r.axes.perAxis[2]));
}

// A first seed with no finite value: edges around 0, and its values counted as non-finite only.
TEST(StreamStats, AFirstSeedWithoutFiniteValues) {
    OutputAccumulator acc(4);
    acc.add(at::tensor({NAN, std::numeric_limits<float>::infinity()}), 0);
    acc.add(at::tensor({0.0f, 5.0f}), 1);
    TaskResult r;
    acc.finish(r);
    EXPECT_DOUBLE_EQ(r.valueHistogram.lo, -1e-6);
    EXPECT_DOUBLE_EQ(r.valueHistogram.hi, 1e-6);
    EXPECT_EQ(r.valueHistogram.nonFinite, 2u);
    EXPECT_EQ(r.valueHistogram.overflow, 1u);
    EXPECT_EQ(r.valueHistogram.total(), 4u);
}

// More than 2^24 values in one bin: float32 counts would stop at 16777216 (or round); the
// histograms must count every value.
TEST(StreamStats, HistogramCountsPast2To24InOneBin) {
    const int64_t n = (int64_t{1} << 24) + 3;
    OutputAccumulator acc(4);
    acc.add(at::full({n}, 1.0f), 0);
    acc.add(at::full({n}, 2.0f), 1);
    TaskResult r;
    acc.finish(r);
    uint64_t most = 0;
    for (uint64_t c : r.valueHistogram.counts) most = std::max(most, c);
    EXPECT_EQ(most, static_cast<uint64_t>(n)) << "the first seed's bin";
    EXPECT_EQ(r.valueHistogram.total(), static_cast<uint64_t>(2 * n));
    EXPECT_EQ(r.stdHistogram.total(), static_cast<uint64_t>(n)) << "every element's std, one bin";
}
