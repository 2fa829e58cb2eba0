// SPDX-License-Identifier: MIT
#include "ks/core/results.h"
#include "ks/core/taskspec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <sstream>

using namespace ks;

namespace {
TaskResult sampleTask() {
    TaskResult t;
    t.id = "L1-23";
    t.name = "23_Softmax";
    t.level = 1;
    t.number = 23;
    t.category = "activation";
    t.description = "with \"quotes\", commas\nand newlines";
    t.tags = {"seed-table1"};
    t.source = "def forward(x: Tensor) -> Tensor:\n    return x.softmax(1)\n";
    t.specJson = R"({"id":"L1-23"})";
    t.outputShape = {16, 16384};
    t.outputDtype = "Float";
    t.seeds = 5;
    t.range = {true, 6.1e-5, 1e-7, 6.1e-5, 0};
    t.outputStd = {true, 3.2e-5, 1.1e-5};
    t.axes.run = true;
    t.axes.perAxis = {3.2e-5, NaN, 5.0e-5};
    t.inputImpact = {true, 3.3e-5, 1.2e-5};
    t.valueHistogram.lo = 0;
    t.valueHistogram.hi = 1e-4;
    t.valueHistogram.counts = {1, 2, 3};
    t.valueHistogram.overflow = 4;
    t.stdHistogram.counts = {7};
    t.seedStats = {{0, 6e-5, 1e-6, 1e-7, 6e-5}};
    t.wallSeconds = 0.25;
    t.runMsMedian = 0.5;
    t.peakMemoryBytes = 12345;
    return t;
}
} // namespace

TEST(FlagRule, OpenIntervalAndNaNAtTheEdges) {
    EXPECT_TRUE(flaggedBelow(0.0099, 0.01));
    EXPECT_FALSE(flaggedBelow(0.01, 0.01)); // open interval: equal is not inside
    // float32 comparison, as torch does: 0.01f read back as double is still "not below 0.01".
    EXPECT_FALSE(flaggedBelow(static_cast<double>(0.01f), 0.01));
    EXPECT_TRUE(flaggedBelow(static_cast<double>(std::nextafter(0.01f, 0.0f)), 0.01));
    EXPECT_FALSE(flaggedBelow(NaN, 0.01));
    EXPECT_FALSE(flaggedBelow(0.5, 0.01));
    EXPECT_TRUE(flaggedBelow(0.0, 0.01));
}

TEST(AxesMetrics, NaNAxisNeverWins) {
    AxesMetrics a;
    a.perAxis = {0.5, NaN, 0.2};
    EXPECT_EQ(a.minAxis(), 2);
    EXPECT_DOUBLE_EQ(a.minValue(), 0.2);
    a.perAxis = {NaN, NaN};
    EXPECT_EQ(a.minAxis(), -1);
    EXPECT_TRUE(std::isnan(a.minValue()));
}

TEST(TaskResultFlags, DeriveFromMetricsAndThresholds) {
    TaskResult t = sampleTask();
    Thresholds th = Thresholds::defaults();
    for (const auto& c : criteria()) EXPECT_TRUE(t.flagged(c.criterion, th)) << c.key;
    th.set(Criterion::OutputRange, 1e-5); // re-threshold without re-running
    EXPECT_FALSE(t.flagged(Criterion::OutputRange, th));
    EXPECT_TRUE(t.anyFlag(th));
    t.inputImpact.run = false; // not run is never flagged
    EXPECT_FALSE(t.flagged(Criterion::InputImpact, th));
}

TEST(ResultsJson, RoundTripKeepsEverythingIncludingNaN) {
    RunResults r;
    r.run.toolVersion = "0.1.0";
    r.run.suite = "builtin";
    r.run.preset = "small";
    r.run.device = "cpu";
    r.run.seeds = 5;
    r.run.totalSeconds = 1.5;
    r.thresholds = Thresholds::defaults();
    r.thresholds.set(Criterion::OutputStd, 0.02);
    r.tasks.push_back(sampleTask());
    TaskResult failed;
    failed.id = "B-1";
    failed.status = TaskStatus::Error;
    failed.error = "task B-1: boom";
    r.tasks.push_back(failed);

    const std::string text = resultsToJson(r);
    const RunResults back = resultsFromJson(text, "mem.json");
    EXPECT_EQ(resultsToJson(back), text);
    ASSERT_EQ(back.tasks.size(), 2u);
    const auto& t = back.tasks[0];
    EXPECT_EQ(t.description, sampleTask().description);
    EXPECT_TRUE(std::isnan(t.axes.perAxis[1]));
    EXPECT_DOUBLE_EQ(t.range.maxAbs, 6.1e-5);
    EXPECT_EQ(t.valueHistogram.counts, (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(t.valueHistogram.overflow, 4u);
    EXPECT_DOUBLE_EQ(back.thresholds.value(Criterion::OutputStd), 0.02);
    EXPECT_EQ(back.tasks[1].status, TaskStatus::Error);
    EXPECT_EQ(back.tasks[1].error, "task B-1: boom");
    EXPECT_FALSE(back.tasks[1].range.run);
}

TEST(ResultsJson, RejectsOtherFilesClearly) {
    try {
        resultsFromJson(R"({"schema":"x"})", "a.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("a.json: not a KernelSieve results file"), std::string::npos);
    }
    try {
        resultsFromJson(R"({"schema":"kernelsieve.results","schema_version":99})", "b.json");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("version 99"), std::string::npos);
    }
    EXPECT_THROW(resultsFromJson("{", "c.json"), Error);
    EXPECT_THROW(resultsFromJson(R"({"schema":"kernelsieve.results","schema_version":1,"tasks":[{"name":"no id"}]})", "d.json"),
                 Error);
}

TEST(Csv, Rfc4180Quoting) {
    EXPECT_EQ(csvField("plain"), "plain");
    EXPECT_EQ(csvField("a,b"), "\"a,b\"");
    EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csvField(""), "");
}

TEST(Csv, TableOneColumnsThenMetrics) {
    RunResults r;
    r.thresholds = Thresholds::defaults();
    r.tasks.push_back(sampleTask());
    TaskResult t2 = sampleTask();
    t2.id = "L1-12";
    t2.name = "12_Matmul,with \"diag\"";
    t2.range.maxAbs = 5.0;
    t2.outputStd.maxStd = 1.0;
    t2.axes.perAxis = {1.0, 2.0, 3.0};
    t2.inputImpact.maxStd = 1.0;
    t2.error = "line1\r\nline2";
    r.tasks.push_back(t2);
    const std::string csv = resultsToCsv(r, r.thresholds);
    std::istringstream in(csv);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("Task ID,Task Name,Output Range,Output Std,Output Axes,Input Impact,Any Flag", 0), 0u)
        << header;
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,True,True,True,True,1,activation,ok,6.1e-05,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\nL1-12,\"12_Matmul,with \"\"diag\"\"\",False,False,False,False,False,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",\"line1\r\nline2\"\r\n"), std::string::npos);
}

TEST(Files, AtomicWriteReplacesAndReads) {
    const auto dir = std::filesystem::temp_directory_path() / ("ks_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string p = (dir / "r.json").string();
    writeFileAtomic(p, "one");
    writeFileAtomic(p, "two");
    EXPECT_EQ(readFile(p), "two");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1); // no temp left
    EXPECT_THROW(writeFileAtomic((dir / "missing" / "x.json").string(), "x"), Error);
    EXPECT_THROW(readFile((dir / "nope").string()), Error);
    std::filesystem::remove_all(dir);
}
