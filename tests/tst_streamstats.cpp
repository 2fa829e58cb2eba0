// SPDX-License-Identifier: MIT
// Streaming statistics must agree with the direct computation on the stacked [S, *out] tensor.
#include "ks/core/streamstats.h"

#include <gtest/gtest.h>

#include <cmath>

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
