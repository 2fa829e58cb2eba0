// SPDX-License-Identifier: MIT
// The harness's guard decisions, on the CPU: these are what catch cheating kernels on the GPU.
#include "ks/core/guards.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ks;

TEST(Guards, CompareWithinToleranceAndNaNRules) {
    const at::Tensor ref = at::tensor({1.0, 100.0, NAN, INFINITY, -INFINITY}, at::kDouble);
    at::Tensor out = at::tensor({1.0f + 1e-6f, 100.0f + 0.005f, NAN, INFINITY, -INFINITY});
    EXPECT_TRUE(guards::compareToReference(out, ref, 1e-5, 1e-4).pass);
    // 100 + 0.02 exceeds 1e-5 + 1e-4 * 100 = 0.01001
    out = at::tensor({1.0f, 100.02f, NAN, INFINITY, -INFINITY});
    const auto c = guards::compareToReference(out, ref, 1e-5, 1e-4);
    EXPECT_FALSE(c.pass);
    EXPECT_EQ(c.badCount, 1);
    EXPECT_EQ(c.firstBad, (std::vector<int64_t>{1}));
    EXPECT_NEAR(c.maxAbsErr, 0.02, 1e-4);
    // NaN where the reference is finite (an unwritten, poisoned output) fails.
    out = at::tensor({NAN, 100.0f, NAN, INFINITY, -INFINITY});
    EXPECT_FALSE(guards::compareToReference(out, ref, 1e-5, 1e-4).pass);
    // An infinity of the wrong sign fails; a finite value where the reference is NaN fails.
    out = at::tensor({1.0f, 100.0f, 0.0f, INFINITY, -INFINITY});
    EXPECT_FALSE(guards::compareToReference(out, ref, 1e-5, 1e-4).pass);
    out = at::tensor({1.0f, 100.0f, NAN, -INFINITY, -INFINITY});
    EXPECT_FALSE(guards::compareToReference(out, ref, 1e-5, 1e-4).pass);
}

TEST(Guards, CompareReportsMultiIndexAndShapeMismatch) {
    at::Tensor ref = at::zeros({3, 4}, at::kDouble);
    at::Tensor out = at::zeros({3, 4});
    out.index_put_({2, 1}, 1.0f);
    const auto c = guards::compareToReference(out, ref, 1e-5, 1e-4);
    EXPECT_EQ(c.firstBad, (std::vector<int64_t>{2, 1}));
    EXPECT_NE(c.describe().find("[2, 1]"), std::string::npos) << c.describe();
    EXPECT_FALSE(guards::compareToReference(at::zeros({4, 3}), ref, 1e-5, 1e-4).pass);
    EXPECT_TRUE(guards::compareToReference(at::zeros({0, 3}), at::zeros({0, 3}, at::kDouble), 1e-5, 1e-4).pass);
}

TEST(Guards, BitwiseEqualCatchesAnyChange) {
    at::Tensor a = at::randn({100});
    at::Tensor b = a.clone();
    EXPECT_TRUE(guards::bitwiseEqual(a, b));
    // One ulp (x + 1e-7 rounds back to x when |x| > ~0.84: that made this test fail at random).
    const float x = b[50].item<float>();
    b.index_put_({50}, std::nextafter(x, x + 1.0f));
    EXPECT_FALSE(guards::bitwiseEqual(a, b));
    EXPECT_FALSE(guards::bitwiseEqual(a, a.to(at::kDouble)));
    at::Tensor n1 = at::full({3}, NAN), n2 = n1.clone();
    EXPECT_TRUE(guards::bitwiseEqual(n1, n2)); // NaN == NaN bit-wise
}

TEST(Guards, ImpossibleSpeedAgainstMeasuredCeilings) {
    std::string why;
    // 134 MB in 0.037 ms = 3.6 TB/s: fine under a 4.2 TB/s ceiling.
    EXPECT_FALSE(guards::impossibleSpeed(134e6, 0, 0.037, 4200, 60, 60e6, false, &why));
    // The same bytes in 0.01 ms = 13 TB/s: impossible.
    EXPECT_TRUE(guards::impossibleSpeed(134e6, 0, 0.01, 4200, 60, 60e6, false, &why));
    EXPECT_NE(why.find("above the measured copy ceiling"), std::string::npos) << why;
    // Data that fits in L2 may beat DRAM bandwidth without an L2 flush ...
    EXPECT_FALSE(guards::impossibleSpeed(1e6, 0, 0.0001, 4200, 60, 60e6, false, &why));
    // ... but not with one.
    EXPECT_TRUE(guards::impossibleSpeed(1e6, 0, 0.0001, 4200, 60, 60e6, true, &why));
    // FLOPs: 2*4096^3 in 1 ms = 137 TFLOP/s beats a 60 TFLOP/s FP32 peak.
    EXPECT_TRUE(guards::impossibleSpeed(0, 2.0 * 4096.0 * 4096 * 4096, 1.0, 4200, 60, 60e6, false, &why));
    EXPECT_NE(why.find("TFLOP/s"), std::string::npos);
    EXPECT_FALSE(guards::impossibleSpeed(134e6, 0, 0, 4200, 60, 60e6, false, &why)); // no time, no verdict
}

TEST(Guards, WorkOnAnotherStream) {
    std::string why;
    EXPECT_FALSE(guards::escapesTimedStream(0.037, 0.040, &why));  // honest, with launch overhead
    EXPECT_FALSE(guards::escapesTimedStream(0.002, 0.008, &why));  // tiny kernel, launch-bound
    EXPECT_TRUE(guards::escapesTimedStream(0.003, 0.300, &why));   // the events saw nothing
    EXPECT_NE(why.find("another stream"), std::string::npos);
}

TEST(Guards, TimingSummary) {
    std::vector<double> s;
    for (int i = 1; i <= 100; ++i) s.push_back(i);
    const TimingStats t = guards::summarize(s, 25, true, 10);
    EXPECT_DOUBLE_EQ(t.medianMs, 50.5);
    EXPECT_DOUBLE_EQ(t.q1Ms, 25.75);
    EXPECT_DOUBLE_EQ(t.q3Ms, 75.25);
    EXPECT_DOUBLE_EQ(t.minMs, 1);
    EXPECT_DOUBLE_EQ(t.meanMs, 50.5);
    EXPECT_EQ(t.runs, 100);
    EXPECT_EQ(t.warmup, 25);
    EXPECT_TRUE(t.l2Flush);
    EXPECT_EQ(t.samplesMs.size(), 10u);
    EXPECT_TRUE(std::isnan(guards::summarize({}, 0, false).medianMs));
}
