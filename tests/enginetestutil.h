// SPDX-License-Identifier: MIT
#pragma once
// Helpers of the engine tests on the CPU and on CUDA (tst_operands.cpp, tst_operands_gpu.cpp).
#include "ks/core/results.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace ks::test {

// Both runs ran every one of their n tasks and got the same statistics, to the bit.
inline void expectSameStatistics(const RunResults& a, const RunResults& b, size_t n) {
    ASSERT_EQ(a.tasks.size(), n);
    ASSERT_EQ(b.tasks.size(), n);
    for (size_t i = 0; i < n; ++i) {
        const TaskResult &x = a.tasks[i], &y = b.tasks[i];
        SCOPED_TRACE(x.id);
        ASSERT_EQ(x.status, TaskStatus::Ok) << x.error;
        ASSERT_EQ(y.status, TaskStatus::Ok) << y.error;
        EXPECT_EQ(x.range.maxAbs, y.range.maxAbs);
        EXPECT_EQ(x.outputStd.maxStd, y.outputStd.maxStd);
        EXPECT_EQ(x.outputStd.meanStd, y.outputStd.meanStd);
        EXPECT_EQ(x.axes.minValue(), y.axes.minValue());
        EXPECT_EQ(x.inputImpact.maxStd, y.inputImpact.maxStd);
        EXPECT_EQ(x.inputImpact.meanStd, y.inputImpact.meanStd);
        EXPECT_EQ(x.valueHistogram.counts, y.valueHistogram.counts);
    }
}

} // namespace ks::test
