// SPDX-License-Identifier: MIT
// The harness's orchestration on a machine without a GPU: a fake worker script answers the jobs,
// and crashes on some variants, to check isolation, assembly and the results file round trip.
#include "ks/core/harness.h"
#include "ks/core/suite.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

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
    // The speedup's interval and U test come from both sample sets (baseline 1.9-2.1 ms, variant
    // 0.49-0.51 ms): every resampled ratio lies between 1.9/0.51 and 2.1/0.49.
    const VariantResult& v = back.tasks[0].variants[0];
    ASSERT_TRUE(v.speedupStats.measured());
    EXPECT_DOUBLE_EQ(v.speedupStats.ratio, 4.0);
    EXPECT_GE(v.speedupStats.lo, 1.9 / 0.51);
    EXPECT_LE(v.speedupStats.hi, 2.1 / 0.49);
    EXPECT_FALSE(v.speedupStats.noMeasurableDifference());
    EXPECT_DOUBLE_EQ(v.speedupStats.pValue, 0.1); // exact U test, 3 against 3, no overlap
    EXPECT_EQ(v.speedupStats.resamples, 2000);
}

// Bench files written before the interval was recorded load, with it unmeasured.
TEST(BenchOrchestration, OldBenchFilesLoadWithoutAnInterval) {
    const std::string text = R"({"schema":"kernelsieve.bench","schema_version":1,"run":{},"tasks":[{"task_id":"L1-12",
        "baseline":{"median_ms":2.0},"variants":[{"name":"v1","speedup":4.0,"timing":{"median_ms":0.5}}]}]})";
    const BenchRun b = benchFromJson(text, "old.json");
    ASSERT_EQ(b.tasks.size(), 1u);
    ASSERT_EQ(b.tasks[0].variants.size(), 1u);
    const VariantResult& v = b.tasks[0].variants[0];
    EXPECT_DOUBLE_EQ(v.speedup, 4.0);
    EXPECT_FALSE(v.speedupStats.measured());
    EXPECT_FALSE(v.speedupStats.noMeasurableDifference());
    EXPECT_THROW(benchFromJson(std::string(text).insert(text.find("\"speedup\""), R"("speedup_ci95":[1],)"), "bad.json"),
                 Error);
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

TEST(BenchOrchestration, DimsSetForTheRunReachEveryWorkerAndTheResults) {
    unsetenv("FAKE_CRASH");
    const std::string log = ::testing::TempDir() + "ks_fake_options.log";
    std::remove(log.c_str());
    setenv("FAKE_OPTIONS_LOG", log.c_str(), 1);
    HarnessOptions o;
    o.dims = {{"batch_size", 1024}, {"dim", 393216}};
    const auto tasks = selectTasks(loadBuiltinSuite(), "L1-12,L1-23");
    const BenchRun run = runBench(tasks, "builtin", o, {std::string(KS_TEST_DATA) + "/fake_worker.sh", {}});
    unsetenv("FAKE_OPTIONS_LOG");
    ASSERT_EQ(run.tasks.size(), 2u);
    // L1-23 has both dims; L1-12 (N, M) has neither and keeps its shapes
    EXPECT_EQ(run.tasks[0].taskId, "L1-12");
    EXPECT_EQ(run.tasks[0].shape, (std::vector<int64_t>{4096, 4096, 4096}));
    EXPECT_EQ(run.tasks[1].taskId, "L1-23");
    EXPECT_EQ(run.tasks[1].shape, (std::vector<int64_t>{1024, 393216}));
    EXPECT_EQ(run.dims, o.dims);
    const BenchRun back = benchFromJson(benchToJson(run), "mem");
    EXPECT_EQ(back.dims, o.dims);
    // every job (ceilings, baselines, variants) was told the dims
    std::ifstream in(log);
    std::string line;
    int jobs = 0;
    while (std::getline(in, line)) {
        ++jobs;
        const auto sp = line.find(' ');
        ASSERT_NE(sp, std::string::npos) << line;
        EXPECT_EQ(harnessOptionsFromJson(line.substr(sp + 1)).dims, o.dims) << line;
    }
    EXPECT_GE(jobs, 1 + 2 + 3 + 6); // ceilings, two baselines, every variant of both ops
    // a run without --dim writes no dims (files stay as before)
    EXPECT_EQ(benchToJson(runFake(false)).find("\"dims\""), std::string::npos);
}

TEST(BenchOrchestration, BadDimsInABenchFileNameTheFile) {
    const std::string text = R"({"schema":"kernelsieve.bench","schema_version":1,
        "run":{"dims":{"dim":"wide"}},"tasks":[]})";
    try {
        benchFromJson(text, "b.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("run.dims.dim"), std::string::npos) << e.what();
    }
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
