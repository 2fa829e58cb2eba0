// SPDX-License-Identifier: MIT
// The harness's orchestration on a machine without a GPU: a fake worker script answers the jobs,
// and crashes on some variants, to check isolation, assembly and the results file round trip.
#include "ks/core/harness.h"
#include "ks/core/suite.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace ks;

namespace {
BenchRun runFake(bool crash) {
    if (crash) setenv("FAKE_CRASH", "1", 1);
    else unsetenv("FAKE_CRASH");
    HarnessOptions o;
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12,L1-23,L1-1");
    return runBench(tasks, "builtin", o, {std::string(KS_TEST_DATA) + "/fake_worker.sh", {}});
}
} // namespace

TEST(BenchOrchestration, AssemblesEveryTaskWithKernels) {
    const BenchRun run = runFake(false);
    ASSERT_EQ(run.tasks.size(), 2u); // L1-1 has no kernels
    EXPECT_EQ(run.deviceName, "Fake GPU");
    EXPECT_DOUBLE_EQ(run.copyBandwidthGBs, 4000);
    EXPECT_EQ(run.tasks[0].taskId, "L1-12");
    EXPECT_DOUBLE_EQ(run.tasks[0].baseline.medianMs, 2.0);
    EXPECT_DOUBLE_EQ(run.tasks[0].minBytes, 134234112);
    EXPECT_EQ(run.tasks[0].variants.size(), 3u);
    for (const auto& v : run.tasks[0].variants) EXPECT_TRUE(v.validation.passed) << v.name;
    const BenchRun back = benchFromJson(benchToJson(run), "mem");
    EXPECT_EQ(benchToJson(back), benchToJson(run));
}

TEST(BenchOrchestration, ACrashingWorkerFailsOnlyItsVariant) {
    const BenchRun run = runFake(true);
    ASSERT_EQ(run.tasks.size(), 2u);
    int crashed = 0, ok = 0;
    for (const auto& t : run.tasks)
        for (const auto& v : t.variants) {
            if (v.name.find("kernel2") != std::string::npos) {
                ++crashed;
                EXPECT_FALSE(v.validation.passed);
                EXPECT_NE(v.error.find("signal 11"), std::string::npos) << v.error;
                EXPECT_NE(v.error.find("about to crash"), std::string::npos) << v.error; // the worker's last words
            } else {
                ++ok;
                EXPECT_TRUE(v.validation.passed) << v.name;
            }
        }
    EXPECT_EQ(crashed, 2);
    EXPECT_GE(ok, 4); // the variants after the crash ran too
}

TEST(BenchOrchestration, AMissingWorkerIsAClearError) {
    HarnessOptions o;
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12");
    try {
        runBench(tasks, "builtin", o, {"/nonexistent/worker", {}});
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/worker"), std::string::npos) << e.what();
    }
}
