// SPDX-License-Identifier: MIT
#include "ks/core/analysisreports.h"
#include "ks/core/procinfo.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"
#include "ks/core/taskspec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <fstream>
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
    for (int c = 0; c < StatisticalCriterionCount; ++c)
        EXPECT_TRUE(t.flagged(static_cast<Criterion>(c), th)) << criteria()[c].key;
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
    r.tasks.back().phaseSeconds["statistics"] = 0.25; // the timings an engine run records
    r.tasks.back().pinnedCacheFreedBytes = int64_t{3} << 30;
    r.tasks.back().rssAnonBytes = int64_t{5} << 30;
    r.tasks.back().rssFileBytes = int64_t{7} << 20;
    r.tasks.back().pinnedHeldBytes = int64_t{4} << 30;
    r.tasks.back().pinnedInUseBytes = int64_t{1} << 30;
    r.tasks.back().deviceReservedBytes = int64_t{69} << 30;
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
    EXPECT_EQ(t.pinnedCacheFreedBytes, int64_t{3} << 30);
    EXPECT_EQ(t.rssAnonBytes, int64_t{5} << 30);
    EXPECT_EQ(t.rssFileBytes, int64_t{7} << 20);
    EXPECT_EQ(t.pinnedHeldBytes, int64_t{4} << 30);
    EXPECT_EQ(t.pinnedInUseBytes, int64_t{1} << 30);
    EXPECT_EQ(t.deviceReservedBytes, int64_t{69} << 30);
    EXPECT_EQ(back.tasks[1].deviceReservedBytes, 0); // CPU runs and old files: not written, 0
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
    t2.range.min = -5.0;
    t2.range.max = 5.0;
    t2.outputStd.maxStd = 1.0;
    t2.axes.perAxis = {1.0, 2.0, 3.0};
    t2.inputImpact.maxStd = 1.0;
    t2.error = "line1\r\nline2";
    r.tasks.push_back(t2);
    const std::string csv = resultsToCsv(r, r.thresholds);
    std::istringstream in(csv);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("Task ID,Task Name,Output Range,Output Std,Output Axes,Input Impact,", 0), 0u) << header;
    // Filters 5-6 were not run for these tasks: empty cells, never True or False.
    // Zeros pass needs no run of its own: outputs of at most 6.1e-5 pass allclose as zeros.
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,True,True,True,,,True,True,1,activation,ok,6.1e-05,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\nL1-12,\"12_Matmul,with \"\"diag\"\"\",False,False,False,False,,,False,False,"), std::string::npos) << csv;
    // The error field, then "approximated" (empty: these specs mark no tensor).
    EXPECT_NE(csv.find(",\"line1\r\nline2\",\r\n"), std::string::npos);
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

// ---- filters 5 and 6 as criteria ---------------------------------------------------------------

namespace {
InefficiencyReport sampleInefficiency() {
    InefficiencyReport r;
    r.taskId = "L1-12";
    r.taskName = "12_Matmul_with_diagonal_matrices_";
    r.device = "cpu";
    r.preset = Preset::Small;
    r.runs = 20;
    r.bytes = 3.0e6;
    r.flops = 2.7e8;
    r.bandwidthGBs = 40;
    r.memoryFloorMs = 0.075;
    r.computeFloorMs = 5.32;
    r.serialSteps = 12;
    r.serialFloorMs = 0.084;
    r.floorMs = 5.32;
    r.eagerMs = 1.52;
    r.eagerMedianMs = 1.6;
    r.efficiency = 3.5;
    r.eagerTrafficBytes = 4.5e6;
    r.passes = 1.5;
    r.memoryBound = false;
    RewriteResult rw;
    rw.rule = "diag-matmul";
    rw.what = "diag(v) @ B -> v.unsqueeze(1) * B";
    rw.node = "%5 : Tensor = aten::matmul(%4, %B)";
    rw.line = 3;
    rw.equal = true;
    rw.maxAbsDiff = 2.4e-7;
    rw.timeMs = 0.044;
    rw.originalMs = 1.518;
    rw.speedup = 34.5;
    r.rewrites.push_back(rw);
    RewriteResult mask;
    mask.rule = "mask-after-matmul";
    mask.implemented = false;
    mask.line = 7;
    r.rewrites.push_back(mask);
    r.bestSpeedup = 34.5;
    r.bestRule = "diag-matmul";
    r.notes = {"timings are CPU timings (2 threads)"};
    return r;
}

RedundancyReport sampleRedundancy() {
    RedundancyReport r;
    r.taskId = "KS-2";
    r.taskName = "Dead_Matmul";
    r.device = "cpu";
    r.seeds = 3;
    r.opsExamined = 4;
    r.totalFlops = 4000;
    r.redundantFlops = 2000;
    RedundantNode n;
    n.kind = RedundantNode::Kind::Dead;
    n.op = "aten::matmul";
    n.line = 4;
    n.sourceText = "y = x @ w";
    n.reason = "only its shape reaches the output";
    n.node = "%y : Tensor = aten::matmul(%x, %w)";
    n.flops = 2000;
    r.nodes.push_back(n);
    r.unused.push_back({"w2", true, "never used"});
    r.notes = {"if-node kept whole"};
    r.wallSeconds = 0.3;
    return r;
}
} // namespace

TEST(Criteria, SevenCriteriaTenThresholdsAndKeys) {
    ASSERT_EQ(criteria().size(), 7u);
    EXPECT_STREQ(criterionInfo(Criterion::ZerosPass).key, "zeros_pass");
    EXPECT_STREQ(criterionInfo(Criterion::ZerosPass).label, "Zeros Pass");
    EXPECT_EQ(thresholdsOf(Criterion::ZerosPass),
              (std::vector<Threshold>{Threshold::ZerosPassAtol, Threshold::ZerosPassRtol}));
    EXPECT_EQ(thresholdFromKey("zeros_pass_rtol"), Threshold::ZerosPassRtol);
    EXPECT_STREQ(criterionInfo(Criterion::BaselineInefficiency).key, "baseline_inefficiency");
    EXPECT_STREQ(criterionInfo(Criterion::BaselineInefficiency).label, "Baseline Inefficiency");
    EXPECT_STREQ(criterionInfo(Criterion::RedundantComputation).key, "redundant_computation");
    EXPECT_STREQ(criterionInfo(Criterion::RedundantComputation).label, "Redundant Computation");
    EXPECT_EQ(thresholdsOf(Criterion::BaselineInefficiency),
              (std::vector<Threshold>{Threshold::BaselineRewriteSpeedup, Threshold::BaselineEfficiency,
                                      Threshold::BaselinePasses}));
    EXPECT_EQ(thresholdsOf(Criterion::OutputStd), std::vector<Threshold>{Threshold::OutputStd});
    const Thresholds d = Thresholds::defaults();
    EXPECT_EQ(d.values.size(), 10u);
    EXPECT_DOUBLE_EQ(d.value(Threshold::ZerosPassAtol), 1e-2); // KernelBench's float32 allclose
    EXPECT_DOUBLE_EQ(d.value(Threshold::ZerosPassRtol), 1e-2);
    EXPECT_DOUBLE_EQ(d.value(Criterion::ZerosPass), 1e-2);
    EXPECT_DOUBLE_EQ(d.borderlineMargin, 0.1);
    EXPECT_DOUBLE_EQ(d.value(Threshold::BaselineRewriteSpeedup), 2.0);
    EXPECT_DOUBLE_EQ(d.value(Threshold::BaselineEfficiency), 0.05);
    EXPECT_DOUBLE_EQ(d.value(Threshold::BaselinePasses), 0.0); // information (docs/inefficiency.md)
    EXPECT_DOUBLE_EQ(d.value(Threshold::RedundantFlopFraction),
                     0.05); // minor findings (docs/redundancy.md)
    EXPECT_EQ(thresholdFromKey("baseline_passes"), Threshold::BaselinePasses);
    EXPECT_FALSE(thresholdFromKey("baseline_inefficiency")); // a criterion, not a threshold
    EXPECT_EQ(thresholdRuleText(Threshold::BaselineRewriteSpeedup, 2), "baseline_rewrite_speedup >= 2");
    EXPECT_EQ(thresholdRuleText(Threshold::OutputRange, 0.01), "output_range < 0.01");
    EXPECT_EQ(thresholdRuleText(Threshold::ZerosPassAtol, 1e-5), "zeros_pass_atol = 1e-05"); // a setting, not a bound
}

TEST(FlagRule, InefficiencyEachRuleAtItsEdge) {
    Thresholds th = Thresholds::defaults();
    InefficiencyReport r;
    r.eagerMs = 1.0;
    r.efficiency = 0.5;
    r.bestSpeedup = 1.0; // no rewrite beat the original
    EXPECT_FALSE(inefficiencyVerdict(r, th).flagged());

    // Rewrite: flagged at exactly the threshold, not just below; needs a rule.
    r.bestRule = "diag-matmul";
    r.bestSpeedup = 2.0;
    EXPECT_TRUE(inefficiencyVerdict(r, th).rewrite);
    r.bestSpeedup = std::nextafter(2.0, 0.0);
    EXPECT_FALSE(inefficiencyVerdict(r, th).rewrite);
    th.set(Threshold::BaselineRewriteSpeedup, 1.0);
    r.bestRule.clear();
    r.bestSpeedup = 1.0;
    EXPECT_FALSE(inefficiencyVerdict(r, th).rewrite) << "no rewrite, nothing to flag even at t = 1";
    th = Thresholds::defaults();

    // Efficiency: strictly below; an unmeasured eager time (0) never flags; NaN never flags.
    r.efficiency = 0.05;
    EXPECT_FALSE(inefficiencyVerdict(r, th).efficiency);
    r.efficiency = 0.0499;
    EXPECT_TRUE(inefficiencyVerdict(r, th).efficiency);
    r.eagerMs = 0;
    EXPECT_FALSE(inefficiencyVerdict(r, th).efficiency);
    r.eagerMs = 1;
    r.efficiency = NaN;
    EXPECT_FALSE(inefficiencyVerdict(r, th).efficiency);
    // A launch-bound task's efficiency says nothing about avoidable work.
    r.efficiency = 0.0499;
    r.launchBound = true;
    EXPECT_FALSE(inefficiencyVerdict(r, th).efficiency);
    r.launchBound = false;
    r.efficiency = 0.5;

    // Passes: information by default (baseline_passes 0). With a bound (profile fusion-headroom):
    // only for a memory-bound, not launch-bound task, at or above it; 0 passes means not measured.
    r.passes = 2.0;
    r.memoryBound = true;
    ASSERT_DOUBLE_EQ(th.value(Threshold::BaselinePasses), 0.0);
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes) << "off by default";
    th.set(Threshold::BaselinePasses, 2.0);
    r.memoryBound = false;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);
    r.memoryBound = true;
    EXPECT_TRUE(inefficiencyVerdict(r, th).passes);
    r.launchBound = true;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);
    r.launchBound = false;
    r.passes = 1.99;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);
    r.passes = 0.0;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);

    // A report with an error flags nothing.
    InefficiencyReport bad = sampleInefficiency();
    EXPECT_TRUE(inefficiencyVerdict(bad, Thresholds::defaults()).flagged());
    bad.error = "task L1-12: boom";
    EXPECT_FALSE(inefficiencyVerdict(bad, Thresholds::defaults()).flagged());
}

// Severity: a major finding (constant output, dead op, never-used argument) always flags; minor
// ones (ops whose removal changes nothing) flag at >= redundant_flop_fraction of the FLOPs.
TEST(FlagRule, RedundancyMajorFindingsAlwaysMinorOnesByTheirFlops) {
    Thresholds th = Thresholds::defaults();
    RedundancyReport r;
    r.totalFlops = 100;
    th.set(Threshold::RedundantFlopFraction, 0.0);
    EXPECT_FALSE(redundancyFlagged(r, th)); // nothing redundant, even at t = 0
    r.unused.push_back({"b", true, "never used"});
    th.set(Threshold::RedundantFlopFraction, 0.25);
    EXPECT_TRUE(redundancyFlagged(r, th)); // 0% of FLOPs, but a parameter never used: a dead branch

    RedundancyReport minor;
    minor.totalFlops = 100;
    RedundantNode clamp;
    clamp.kind = RedundantNode::Kind::NoEffect;
    clamp.op = "aten::clamp";
    minor.nodes.push_back(clamp);
    minor.unused.push_back({"lo", true, "only feeds redundant ops"}); // follows the op's severity
    EXPECT_FALSE(redundancyMajor(minor));
    minor.redundantFlops = 25; // exactly the bound
    EXPECT_TRUE(redundancyFlagged(minor, th));
    minor.redundantFlops = 24.9;
    EXPECT_FALSE(redundancyFlagged(minor, th));
    EXPECT_TRUE(redundancyFlagged(minor, Thresholds::defaults())); // 24.9% >= the default 5%
    minor.redundantFlops = 4.9;
    EXPECT_FALSE(redundancyFlagged(minor, Thresholds::defaults()));
    minor.nodes[0].kind = RedundantNode::Kind::ConstantOutput; // now major: flags at any share
    EXPECT_TRUE(redundancyFlagged(minor, Thresholds::defaults()));
    r.redundantFlops = 100;
    r.error = "task KS-1: failed";
    EXPECT_FALSE(redundancyFlagged(r, th));
}

TEST(FlagRule, CellSummariesNameTheDominantReason) {
    const Thresholds th = Thresholds::defaults();
    InefficiencyReport r = sampleInefficiency();
    EXPECT_EQ(inefficiencySummary(r, th), "34.5x diag-matmul");
    r.bestRule.clear();
    r.bestSpeedup = 1;
    r.efficiency = 0.031;
    EXPECT_EQ(inefficiencySummary(r, th), "eff 0.031");
    r.efficiency = 0.5;
    r.memoryBound = true;
    r.passes = 2.5;
    EXPECT_EQ(inefficiencySummary(r, th), "eff 0.5"); // passes are information by default
    Thresholds fusion = th;
    fusion.set(Threshold::BaselinePasses, 2.0); // profile fusion-headroom
    EXPECT_EQ(inefficiencySummary(r, fusion), "2.5 passes");
    r.passes = 1.2;
    EXPECT_EQ(inefficiencySummary(r, fusion), "eff 0.5"); // passed: the efficiency
    RedundancyReport d = sampleRedundancy();
    EXPECT_EQ(redundancySummary(d), "50%, 1 op");
    d.nodes.clear();
    d.redundantFlops = 0;
    EXPECT_EQ(redundancySummary(d), "0%, 1 unused");
    d.unused.clear();
    EXPECT_EQ(redundancySummary(d), "none");
}

TEST(TaskResultFlags, AnalysesFlagThroughTaskResultAndNotRunIsNeverFlagged) {
    TaskResult t = sampleTask();
    const Thresholds th = Thresholds::defaults();
    EXPECT_FALSE(t.criterionRun(Criterion::BaselineInefficiency));
    EXPECT_FALSE(t.flagged(Criterion::RedundantComputation, th));
    EXPECT_TRUE(std::isnan(t.metric(Criterion::BaselineInefficiency)));
    t.inefficiency = sampleInefficiency();
    t.redundancy = sampleRedundancy();
    EXPECT_TRUE(t.flagged(Criterion::BaselineInefficiency, th));
    EXPECT_TRUE(t.flagged(Criterion::RedundantComputation, th));
    EXPECT_DOUBLE_EQ(t.metric(Criterion::BaselineInefficiency), 34.5);
    EXPECT_DOUBLE_EQ(t.metric(Criterion::RedundantComputation), 0.5);
    Thresholds looser = th;
    looser.set(Threshold::BaselineRewriteSpeedup, 50);
    looser.set(Threshold::RedundantFlopFraction, 0.6);
    EXPECT_FALSE(t.flagged(Criterion::BaselineInefficiency, looser)); // re-threshold, no re-run
    EXPECT_TRUE(t.flagged(Criterion::RedundantComputation,
                          looser)); // a dead matmul is major: any share flags
    t.redundancy->nodes[0].kind =
        RedundantNode::Kind::NoEffect; // a removable op: minor, 50% of the FLOPs
    t.redundancy->unused.clear();
    EXPECT_TRUE(t.flagged(Criterion::RedundantComputation, th));
    EXPECT_FALSE(t.flagged(Criterion::RedundantComputation, looser));
    t.redundancy->error = "task L1-23: redundancy analysis failed: x";
    EXPECT_FALSE(t.criterionRun(Criterion::RedundantComputation));
    EXPECT_EQ(t.criterionError(Criterion::RedundantComputation), "task L1-23: redundancy analysis failed: x");
    EXPECT_FALSE(t.flagged(Criterion::RedundantComputation, th));
}

TEST(ResultsJson, RoundTripWithBothAnalysesAndCeilings) {
    RunResults r;
    r.run.device = "cpu";
    DeviceCeilings c;
    c.device = "cpu";
    c.deviceName = "AMD EPYC";
    c.copyBandwidthGBs = 6.5;
    c.copyCurve = {{32768, 120.5}, {1.3e8, 6.5}};
    c.fp32PeakGflops = 80;
    c.graphLaunchMs = 0.0031;
    c.graphKernelMs = 0.0014;
    c.threads = 2;
    c.method = "copy_";
    c.source = "/tmp/ceilings-cpu.json";
    r.run.ceilings = c;
    r.thresholds = Thresholds::defaults();
    r.thresholds.set(Threshold::BaselinePasses, 3.5);
    TaskResult t = sampleTask();
    t.inefficiency = sampleInefficiency();
    t.inefficiency->eagerMs = 2.5;
    t.inefficiency->graphMs = 0.75;
    t.inefficiency->hostSyncs = 2;
    t.inefficiency->graphLaunchMs = 0.0031;
    t.inefficiency->graphKernelMs = 0.0014;
    t.redundancy = sampleRedundancy();
    r.tasks.push_back(t);
    TaskResult failed = sampleTask();
    failed.id = "L1-99";
    failed.inefficiency = InefficiencyReport{};
    failed.inefficiency->error = "task L1-99: no device ceilings";
    r.tasks.push_back(failed);

    const std::string text = resultsToJson(r);
    const RunResults back = resultsFromJson(text, "mem.json");
    EXPECT_EQ(resultsToJson(back), text);
    EXPECT_DOUBLE_EQ(back.thresholds.value(Threshold::BaselinePasses), 3.5);
    ASSERT_TRUE(back.run.ceilings);
    EXPECT_EQ(back.run.ceilings->copyCurve.size(), 2u);
    EXPECT_DOUBLE_EQ(back.run.ceilings->copyCurve[0].second, 120.5);
    const auto& b = back.tasks[0];
    ASSERT_TRUE(b.inefficiency && b.redundancy);
    EXPECT_EQ(b.inefficiency->rewrites.size(), 2u);
    EXPECT_FALSE(b.inefficiency->rewrites[1].implemented);
    EXPECT_EQ(b.inefficiency->rewrites[0].line, 3);
    EXPECT_DOUBLE_EQ(b.inefficiency->rewrites[0].maxAbsDiff, 2.4e-7);
    EXPECT_DOUBLE_EQ(b.inefficiency->rewrites[0].originalMs, 1.518);
    EXPECT_DOUBLE_EQ(b.inefficiency->passes, 1.5);
    EXPECT_DOUBLE_EQ(b.inefficiency->serialSteps, 12);
    EXPECT_DOUBLE_EQ(b.inefficiency->serialFloorMs, 0.084);
    EXPECT_DOUBLE_EQ(b.inefficiency->graphMs, 0.75);
    EXPECT_DOUBLE_EQ(b.inefficiency->graphLaunchMs, 0.0031);
    EXPECT_DOUBLE_EQ(b.inefficiency->dispatchMs(), 1.75);
    {
        // Said with an efficiency flag only: 1.75 of 2.5 ms is the host's.
        InefficiencyReport e = *b.inefficiency;
        e.bestRule.clear();
        e.launchBound = false;
        e.efficiency = 0.01;
        EXPECT_EQ(inefficiencyDispatchNote(e, Thresholds::defaults()), "host dispatch 70% of the eager time");
        e.efficiency = 0.5;
        EXPECT_EQ(inefficiencyDispatchNote(e, Thresholds::defaults()), "");
        e.efficiency = 0.01;
        e.graphMs = 0;
        EXPECT_EQ(inefficiencyDispatchNote(e, Thresholds::defaults()), "");
    }
    EXPECT_DOUBLE_EQ(back.run.ceilings->graphLaunchMs, 0.0031);
    EXPECT_DOUBLE_EQ(back.run.ceilings->graphKernelMs, 0.0014);
    EXPECT_DOUBLE_EQ(b.inefficiency->graphKernelMs, 0.0014);
    EXPECT_EQ(b.inefficiency->hostSyncs, 2);
    // Files from before the graph replay read as not measured.
    EXPECT_EQ(b.inefficiency->graphError, "");
    {
        nlohmann::json old = inefficiencyReportToJson(*t.inefficiency);
        old.erase("graph_ms");
        old.erase("graph_launch_ms");
        old.erase("graph_kernel_ms");
        old.erase("graph_error");
        old.erase("host_syncs");
        const InefficiencyReport o = inefficiencyReportFromJson(old);
        EXPECT_EQ(o.graphMs, 0);
        EXPECT_EQ(o.hostSyncs, -1) << "not counted";
        EXPECT_EQ(o.dispatchMs(), 0);
    }
    EXPECT_EQ(b.redundancy->nodes.at(0).kind, RedundantNode::Kind::Dead);
    EXPECT_EQ(b.redundancy->nodes.at(0).sourceText, "y = x @ w");
    EXPECT_TRUE(b.redundancy->unused.at(0).isParam);
    EXPECT_TRUE(b.flagged(Criterion::BaselineInefficiency, back.thresholds));
    EXPECT_EQ(back.tasks[1].criterionError(Criterion::BaselineInefficiency), "task L1-99: no device ceilings");
    // Flags written for other readers: a report with an error is "not run" (null).
    EXPECT_NE(text.find("\"baseline_inefficiency\": null"), std::string::npos);
    EXPECT_NE(text.find("\"redundant_computation\": true"), std::string::npos);
    // The streamed form (the GUI worker's task events) carries the reports too.
    const TaskResult streamed = taskResultFromJson(taskResultToJson(t), "line");
    ASSERT_TRUE(streamed.redundancy);
    EXPECT_EQ(streamed.redundancy->nodes.size(), 1u);
}

TEST(ResultsJson, OldVersion1FileWithoutAnalysesLoadsAsNotRun) {
    // As written before filters 5-6 joined the matrix: four thresholds, no reports, no ceilings.
    const std::string old = R"({"schema":"kernelsieve.results","schema_version":1,
        "run":{"tool_version":"0.1.0","device":"cpu","seeds":5},
        "thresholds":{"profile":"robust-kbench","output_range":0.02,"output_std":0.01,"output_axes":0.01,"input_impact":0.01},
        "tasks":[{"id":"L1-23","name":"23_Softmax","status":"ok",
                  "metrics":{"output_range":{"run":true,"max_abs":0.001},"output_std":{"run":true,"max_std":0.5}},
                  "flags":{"output_range":true}}]})";
    const RunResults r = resultsFromJson(old, "old.json");
    EXPECT_FALSE(r.run.ceilings);
    EXPECT_DOUBLE_EQ(r.thresholds.value(Threshold::OutputRange), 0.02);
    EXPECT_DOUBLE_EQ(r.thresholds.value(Threshold::BaselineRewriteSpeedup), 2.0); // default
    ASSERT_EQ(r.tasks.size(), 1u);
    const auto& t = r.tasks[0];
    EXPECT_TRUE(t.flagged(Criterion::OutputRange, r.thresholds));
    for (Criterion c : {Criterion::BaselineInefficiency, Criterion::RedundantComputation}) {
        EXPECT_FALSE(t.criterionRun(c));
        EXPECT_FALSE(t.flagged(c, r.thresholds));
        EXPECT_EQ(t.criterionError(c), "");
    }
    // Zeros pass is derived from the stored range: this file gets its verdict without a re-run
    // (max |value| 0.001, no min/max/seed stats: the all-zero output alone decides).
    EXPECT_DOUBLE_EQ(r.thresholds.value(Threshold::ZerosPassAtol), 1e-2);
    EXPECT_DOUBLE_EQ(r.thresholds.borderlineMargin, DefaultBorderlineMargin);
    EXPECT_TRUE(t.criterionRun(Criterion::ZerosPass));
    EXPECT_TRUE(t.flagged(Criterion::ZerosPass, r.thresholds));
    EXPECT_NEAR(t.metric(Criterion::ZerosPass, r.thresholds), 0.001 / (0.01 + 0.01 * 0.001), 1e-6);
    const std::string csv = resultsToCsv(r, r.thresholds);
    // Not run is an empty cell, never True or False.
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,False,,,,,True,True,"), std::string::npos) << csv;
}

TEST(ResultsJson, BadAnalysisReportNamesTheTaskAndTheAnalysis) {
    const std::string bad = R"({"schema":"kernelsieve.results","schema_version":1,"tasks":[
        {"id":"KS-3","redundancy":{"nodes":[{"kind":"sideways"}]}}]})";
    try {
        resultsFromJson(bad, "bad.json");
        FAIL();
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("bad.json"), std::string::npos) << m;
        EXPECT_NE(m.find("task KS-3"), std::string::npos) << m;
        EXPECT_NE(m.find("redundancy"), std::string::npos) << m;
        EXPECT_NE(m.find("sideways"), std::string::npos) << m;
    }
}

TEST(Csv, FiltersFiveAndSixColumnsFollowTableOne) {
    RunResults r;
    r.thresholds = Thresholds::defaults();
    TaskResult t = sampleTask();
    t.inefficiency = sampleInefficiency();
    t.redundancy = sampleRedundancy();
    r.tasks.push_back(t);
    TaskResult e = sampleTask();
    e.id = "L1-99";
    e.name = "broken";
    e.redundancy = RedundancyReport{};
    e.redundancy->error = "task L1-99: redundancy analysis failed: boom";
    r.tasks.push_back(e);
    const std::string csv = resultsToCsv(r, r.thresholds);
    std::istringstream in(csv);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("Task ID,Task Name,Output Range,Output Std,Output Axes,Input Impact,Baseline Inefficiency,"
                           "Redundant Computation,Zeros Pass,Any Flag,Level,Category,Status,output_range_metric",
                           0),
              0u)
        << header;
    for (const char* col :
         {",baseline_rewrite_speedup,baseline_rewrite_rule,baseline_efficiency,baseline_passes,baseline_memory_bound,",
          ",baseline_eager_ms,baseline_graph_ms,baseline_host_syncs,baseline_floor_ms,baseline_timed_on,baseline_reasons,",
          ",redundant_flop_fraction,redundant_nodes,redundant_unused_args,zeros_pass_metric,",
          ",baseline_rewrite_speedup_threshold,baseline_efficiency_threshold,baseline_passes_threshold,"
          "redundant_flop_fraction_threshold,zeros_pass_atol_threshold,zeros_pass_rtol_threshold,"
          "borderline_margin,borderline,output_axes_argmin,"})
        EXPECT_NE(header.find(col), std::string::npos) << col;
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,True,True,True,True,True,True,True,1,activation,ok,"), std::string::npos)
        << csv;
    // baseline_graph_ms and baseline_host_syncs are empty where no CUDA-graph replay was measured
    // and no synchronisation counted (here: CPU timings).
    EXPECT_NE(csv.find(",34.5,diag-matmul,3.5,1.5,False,1.52,,,5.32,CPU,rewrite,0.5,1,1,"), std::string::npos) << csv;
    r.tasks[0].inefficiency->device = "cuda";
    r.tasks[0].inefficiency->graphMs = 0.61;
    r.tasks[0].inefficiency->hostSyncs = 0;
    EXPECT_NE(resultsToCsv(r, r.thresholds).find(",34.5,diag-matmul,3.5,1.5,False,1.52,0.61,0,5.32,CUDA,rewrite,"),
              std::string::npos);
    r.tasks[0].inefficiency->hostSyncs = 3;
    EXPECT_NE(resultsToCsv(r, r.thresholds).find(",1.52,0.61,3,5.32,CUDA,"), std::string::npos);
    EXPECT_NE(csv.find(",0.01,0.01,0.01,0.01,2,0.05,0,0.05,"), std::string::npos) << csv;
    // The failed analysis: an empty cell, and its error in the error column, named.
    EXPECT_NE(csv.find("\r\nL1-99,broken,True,True,True,True,,,True,True,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("redundant_computation: task L1-99: redundancy analysis failed: boom"), std::string::npos);
    const std::string table = resultsToTable(r, r.thresholds);
    EXPECT_NE(table.find("FLAG 34.5x diag-matmul"), std::string::npos) << table;
    EXPECT_NE(table.find("FLAG 50%, 1 op"), std::string::npos) << table;
    EXPECT_NE(table.find("baseline_inefficiency=1 redundant_computation=1"), std::string::npos) << table;
}

TEST(Profiles, OldProfilesLoadWithDefaultsForNewThresholds) {
    const Thresholds p = parseProfile(
        R"({"kind":"kernelsieve.profile","name":"old","thresholds":{"output_range":0.5}})", "old.json");
    EXPECT_DOUBLE_EQ(p.value(Threshold::OutputRange), 0.5);
    EXPECT_DOUBLE_EQ(p.value(Threshold::BaselineEfficiency), 0.05);
    EXPECT_THROW(parseProfile(R"({"kind":"kernelsieve.profile","thresholds":{"baseline_inefficiency":1}})", "x.json"),
                 Error);
    for (const auto& name : builtinProfileNames()) {
        const auto b = builtinProfile(name);
        ASSERT_TRUE(b) << name;
        // Every built-in profile sets every threshold explicitly (none rides on a default).
        const std::string text = embeddedFile("profiles/" + name + ".json");
        for (const auto& i : thresholdInfos())
            EXPECT_NE(text.find(std::string("\"") + i.key + "\""), std::string::npos) << name << " " << i.key;
        EXPECT_NE(text.find("\"borderline_margin\""), std::string::npos) << name;
        EXPECT_EQ(parseProfile(profileToJson(*b), name), *b);
    }
    EXPECT_DOUBLE_EQ(builtinProfile("strict")->value(Threshold::BaselineRewriteSpeedup), 5.0);
    // The seed's validation bar, stricter than KernelBench's 1e-2: fewer outputs pass as zeros.
    EXPECT_DOUBLE_EQ(builtinProfile("strict")->value(Threshold::ZerosPassAtol), 1e-5);
    EXPECT_DOUBLE_EQ(builtinProfile("strict")->value(Threshold::ZerosPassRtol), 1e-4);
}

TEST(Criteria, RuleTextSaysTheWholeRule) {
    Thresholds t = Thresholds::defaults();
    t.set(Threshold::BaselinePasses, 3);
    EXPECT_EQ(criterionRuleText(Criterion::OutputAxes, t), "output_axes < 0.01");
    EXPECT_EQ(criterionRuleText(Criterion::BaselineInefficiency, t),
              "baseline_rewrite_speedup >= 2 or (not launch-bound and baseline_efficiency < 0.05) "
              "or (memory-bound, "
              "not launch-bound and baseline_passes >= 3)");
    // passes off (the default): the rule does not mention it
    EXPECT_EQ(criterionRuleText(Criterion::BaselineInefficiency, Thresholds::defaults()),
              "baseline_rewrite_speedup >= 2 or (not launch-bound and baseline_efficiency < 0.05)");
    EXPECT_EQ(criterionRuleText(Criterion::RedundantComputation, t),
              "constant outputs, dead ops or unused arguments, or removable ops with "
              "redundant_flop_fraction >= 0.05");
}

// ---- zeros pass (KernelBench issue 165) ---------------------------------------------------------

namespace {
Thresholds tolerances(double atol, double rtol) {
    Thresholds t = Thresholds::defaults();
    t.set(Threshold::ZerosPassAtol, atol);
    t.set(Threshold::ZerosPassRtol, rtol);
    return t;
}

// Outputs spanning [lo, hi] over `seeds` seeds whose per-seed means are `means`.
TaskResult rangeTask(double lo, double hi, std::vector<double> means) {
    TaskResult t;
    t.id = "Z-1";
    t.range = {true, std::max(std::fabs(lo), std::fabs(hi)), lo, hi, 0};
    int64_t seed = 0;
    for (double m : means) t.seedStats.push_back({seed++, m, NaN, NaN, NaN});
    t.seeds = static_cast<int>(means.size());
    return t;
}
} // namespace

TEST(ZerosPass, AllZeroOutputAtTheToleranceEdge) {
    // allclose passes at equality: |0 - x| <= atol + rtol |x|. Values exact in binary make the
    // boundary exact: 1 <= 0.5 + 0.5 * 1.
    EXPECT_DOUBLE_EQ(toleranceUsed(1.0, 1.0, 0.0, 0.5, 0.5), 1.0);
    EXPECT_GT(toleranceUsed(std::nextafter(1.0f, 2.0f), std::nextafter(1.0f, 2.0f), 0.0, 0.5, 0.5), 1.0);
    TaskResult t = rangeTask(-1.0, 1.0, {});
    EXPECT_TRUE(t.flagged(Criterion::ZerosPass, tolerances(0.5, 0.5)));
    t.range.maxAbs = t.range.max = std::nextafter(1.0f, 2.0f);
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, tolerances(0.5, 0.5)));

    // In float32, as torch compares a float32 output: 0.01f is within atol = 0.01 (both are 0.01f).
    t = rangeTask(0.0, static_cast<double>(0.01f), {});
    EXPECT_DOUBLE_EQ(t.metric(Criterion::ZerosPass, tolerances(0.01, 0.0)), 1.0);
    EXPECT_TRUE(t.flagged(Criterion::ZerosPass, tolerances(0.01, 0.0)));
    t.range.maxAbs = t.range.max = static_cast<double>(std::nextafter(0.01f, 1.0f));
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, tolerances(0.01, 0.0)));

    // KernelBench's 1e-2 / 1e-2 lets zeros pass up to max |value| = atol / (1 - rtol) = 0.010101.
    const Thresholds kb = Thresholds::defaults();
    EXPECT_TRUE(rangeTask(-0.0101, 0.005, {}).flagged(Criterion::ZerosPass, kb));
    EXPECT_FALSE(rangeTask(-0.0102, 0.005, {}).flagged(Criterion::ZerosPass, kb));
    // The seed's bar does not: L1-23's softmax outputs (up to 6.1e-5) are caught by zeros there.
    EXPECT_TRUE(rangeTask(1e-7, 6.1e-5, {}).flagged(Criterion::ZerosPass, kb));
    EXPECT_FALSE(rangeTask(1e-7, 6.1e-5, {}).flagged(Criterion::ZerosPass, tolerances(1e-5, 1e-4)));
}

TEST(ZerosPass, ConstantMeanOutputPassesWhereZerosDoNot) {
    // L1-95 (cross-entropy, 5 seeds): outputs 2.726 .. 2.777 around 2.751. Zeros are far off, but
    // returning the mean is within 1e-2 + 1e-2 * |ref| of every value.
    TaskResult t = rangeTask(2.7263098692316023, 2.7768249369050833,
                             {2.7512696, 2.7512832, 2.7511637, 2.7512851, 2.7511333});
    const Thresholds kb = Thresholds::defaults();
    EXPECT_GT(toleranceUsed(t.range.maxAbs, t.range.maxAbs, 0.0, 0.01, 0.01), 50);
    const double c = t.constantMean();
    EXPECT_NEAR(c, 2.75122698, 1e-7);
    // The worst element is the max: |2.7768 - c| / (0.01 + 0.01 * 2.7768).
    const double expected = (2.7768249369050833 - c) / (0.01 + 0.01 * 2.7768249369050833);
    EXPECT_NEAR(t.metric(Criterion::ZerosPass, kb), expected, 1e-5);
    EXPECT_TRUE(t.flagged(Criterion::ZerosPass, kb));
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, tolerances(1e-5, 1e-4)));
    // The mean must be the mean of every output: one seed off by 1 moves it out of tolerance.
    t.seedStats[0].mean += 5.0;
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, kb));
}

TEST(ZerosPass, ZeroInsideTheRangeIsCheckedConservatively) {
    // Only min and max are stored. With rtol > 1, |x - c| / (atol + rtol |x|) can peak at x = 0,
    // which need not be an output value: we count it, so a pass is never claimed that torch would
    // not give. Values {-1, 1} with c = 0.02 would pass; the range [-1, 1] does not.
    EXPECT_NEAR(toleranceUsed(-1.0, 1.0, 0.02, 0.01, 2.0), 2.0, 1e-6); // |c| / atol at x = 0
    EXPECT_LT(toleranceUsed(1.0, 1.0, 0.02, 0.01, 2.0), 1.0);
    EXPECT_LT(toleranceUsed(-1.0, -1.0, 0.02, 0.01, 2.0), 1.0);
    // A range that does not contain 0 has no such candidate.
    EXPECT_LT(toleranceUsed(0.5, 1.0, 0.75, 0.01, 2.0), 1.0);
}

TEST(ZerosPass, NonFiniteOutputsAndMissingStatsNeverFlag) {
    const Thresholds kb = Thresholds::defaults();
    TaskResult t = rangeTask(0.0, 0.0, {0.0});
    EXPECT_TRUE(t.flagged(Criterion::ZerosPass, kb));
    t.range.nonFinite = 1; // one NaN or infinity in the outputs: no constant is allclose to it
    EXPECT_TRUE(std::isnan(t.metric(Criterion::ZerosPass, kb)));
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, kb));
    t = rangeTask(0.0, 0.0, {});
    t.range.maxAbs = NaN;
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, kb));
    // A NaN seed mean drops the constant candidate, not the zeros one.
    t = rangeTask(-0.005, 0.005, {NaN});
    EXPECT_TRUE(t.flagged(Criterion::ZerosPass, kb));
    EXPECT_TRUE(std::isnan(t.constantMean()));
    t.range.run = false; // a failed task: not run, empty in the CSV
    EXPECT_FALSE(t.criterionRun(Criterion::ZerosPass));
    EXPECT_FALSE(t.flagged(Criterion::ZerosPass, kb));
    EXPECT_FALSE(t.anyFlag(kb));
}

TEST(ZerosPass, MatrixOutputsAndRuleText) {
    RunResults r;
    r.thresholds = tolerances(1e-5, 1e-4);
    r.tasks.push_back(rangeTask(-3e-6, 8e-6, {1e-6}));
    const std::string json = resultsToJson(r);
    EXPECT_NE(json.find("\"zeros_pass\": true"), std::string::npos) << json;
    EXPECT_NE(json.find("\"zeros_pass_atol\": 1e-05"), std::string::npos) << json;
    const RunResults back = resultsFromJson(json, "z.json");
    EXPECT_EQ(back.thresholds, r.thresholds);
    const std::string csv = resultsToCsv(r, r.thresholds);
    // zeros: 8e-6 / (1e-5 + 1e-4 * 8e-6) = 0.79994; the mean 1e-6 does better, worst at the max:
    // 7e-6 / (1e-5 + 1e-4 * 8e-6) = 0.69994. The metric is the smaller.
    EXPECT_NE(csv.find(",0.699944007,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",1e-05,0.0001,0.1,"), std::string::npos) << csv;
    EXPECT_EQ(criterionRuleText(Criterion::ZerosPass, r.thresholds),
              "zeros or the mean pass allclose(zeros_pass_atol = 1e-05, zeros_pass_rtol = 0.0001)");
    EXPECT_NE(resultsToTable(r, r.thresholds).find("zeros_pass=1"), std::string::npos);
}

// ---- borderline ---------------------------------------------------------------------------------

TEST(Borderline, MetricWithinTheMarginOfItsThreshold) {
    const Thresholds th = Thresholds::defaults(); // margin 0.1 around output_axes < 0.01
    TaskResult t = sampleTask();
    t.range.run = t.outputStd.run = t.inputImpact.run = false; // only the axes rule in play
    auto axes = [&](double v) {
        t.axes.perAxis = {v};
        const auto hits = t.borderline(th);
        return hits.size() == 1 && hits[0].threshold == Threshold::OutputAxes;
    };
    // L2-38 with 5 seeds: the axes metric sits at 0.0092-0.0103 around 0.01; flagged or not, its
    // verdict is not one to trust.
    for (double v : {0.0092, 0.0097, 0.01, 0.0103}) EXPECT_TRUE(axes(v)) << v;
    EXPECT_TRUE(axes(0.0091));  // flagged, but 0.009 (t * 0.9) would not flag it
    EXPECT_FALSE(axes(0.0089)); // clearly flagged
    EXPECT_FALSE(axes(0.0111)); // clearly passed
    EXPECT_FALSE(axes(NaN));
    t.axes.perAxis = {0.0098};
    const auto hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_DOUBLE_EQ(hits[0].metric, 0.0098);
    EXPECT_DOUBLE_EQ(hits[0].bound, 0.01);
    EXPECT_EQ(borderlineText(hits[0], th.borderlineMargin), "borderline: 0.0098 is within 10% of 0.01");
    Thresholds off = th;
    off.borderlineMargin = 0;
    EXPECT_TRUE(t.borderline(off).empty());
    Thresholds wide = th;
    wide.borderlineMargin = 0.5;
    t.axes.perAxis = {0.006};
    EXPECT_EQ(t.borderline(wide).size(), 1u);
    EXPECT_TRUE(t.borderline(th).empty());
}

TEST(Borderline, EachThresholdOfFilterFiveAgainstItsOwnMetric) {
    TaskResult t;
    t.id = "B-1";
    t.inefficiency = InefficiencyReport{};
    auto& r = *t.inefficiency;
    r.eagerMs = 1;
    r.efficiency = 0.5;
    r.bestSpeedup = 1.9;
    r.passes = 1.9;
    Thresholds th = Thresholds::defaults();
    th.set(Threshold::BaselineRewriteSpeedup, 2);
    th.set(Threshold::BaselinePasses, 2);
    // A speedup of 1.9 is near 2, but without a rewrite rule nothing can flag: not borderline.
    // Nor are 1.9 passes of a compute-bound task.
    EXPECT_TRUE(t.borderline(th).empty());
    r.bestRule = "diag-matmul";
    r.memoryBound = true;
    r.efficiency = 0.052; // passes, 4% above baseline_efficiency = 0.05
    const auto hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 3u);
    EXPECT_EQ(hits[0].threshold, Threshold::BaselineRewriteSpeedup);
    EXPECT_DOUBLE_EQ(hits[0].metric, 1.9);
    EXPECT_EQ(hits[1].threshold, Threshold::BaselineEfficiency);
    EXPECT_DOUBLE_EQ(hits[1].metric, 0.052);
    EXPECT_DOUBLE_EQ(hits[1].bound, 0.05);
    EXPECT_EQ(hits[2].threshold, Threshold::BaselinePasses);
    EXPECT_DOUBLE_EQ(t.thresholdMetric(Threshold::BaselinePasses), 1.9);
    r.efficiency = 0.2;
    EXPECT_EQ(t.borderline(th).size(), 2u);
    // A bound of 0 has no relative neighbourhood.
    th.set(Threshold::BaselineRewriteSpeedup, 0);
    th.set(Threshold::BaselinePasses, 0);
    EXPECT_TRUE(t.borderline(th).empty());
    EXPECT_TRUE(std::isnan(t.thresholdMetric(Threshold::ZerosPassAtol)));
}

// Filter 5's launch-bound test decides whether the efficiency rule may fire; level-3 ShuffleNet on
// the H200 measured 4.71 ms eager against a limit of 2 x 234 x 0.00944 = 4.42 ms in one lease
// (flagged, efficiency 0.012) and 3.58 against 3.88 in another (launch-bound, not flagged). Both
// are borderline, on the efficiency rule, with the eager time and the limit named.
TEST(Borderline, LaunchBoundTestNearItsLimitMarksTheRuleItDecides) {
    TaskResult t;
    t.id = "L3-26";
    t.inefficiency = InefficiencyReport{};
    auto& r = *t.inefficiency;
    r.launches = 234;
    r.launchMs = 0.00944;
    r.eagerMs = 4.71;
    r.efficiency = 0.0118;
    r.launchBound = r.eagerMs <= r.launchBoundLimitMs();
    const Thresholds th = Thresholds::defaults();
    ASSERT_FALSE(r.launchBound);
    ASSERT_TRUE(t.flagged(Criterion::BaselineInefficiency, th));
    auto hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].threshold, Threshold::BaselineEfficiency);
    EXPECT_TRUE(hits[0].launchBoundTest);
    EXPECT_DOUBLE_EQ(hits[0].metric, 4.71);
    EXPECT_NEAR(hits[0].bound, 4.41792, 1e-9);
    EXPECT_EQ(borderlineText(hits[0], th.borderlineMargin),
              "borderline: eager 4.71 ms is within 10% of the launch-bound limit 4.42 ms (2 x launches x one "
              "launch), which decides the efficiency rule");
    // The other lease: launch-bound, so not flagged; still borderline.
    r.launchMs = 0.00829;
    r.eagerMs = 3.58;
    r.launchBound = r.eagerMs <= r.launchBoundLimitMs();
    ASSERT_TRUE(r.launchBound);
    ASSERT_FALSE(t.flagged(Criterion::BaselineInefficiency, th));
    hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_TRUE(hits[0].launchBoundTest);
    // Far from the limit (twice the eager time): the test is not in doubt.
    r.eagerMs = 7.2;
    r.launchBound = false;
    EXPECT_TRUE(t.borderline(th).empty());
    // Near the limit but the rule would not fire either way (efficiency well above 0.05): nothing.
    r.eagerMs = 3.58;
    r.launchBound = true;
    r.efficiency = 0.4;
    EXPECT_TRUE(t.borderline(th).empty());
    // The passes rule, when switched on, is decided by the same test.
    Thresholds fusion = th;
    fusion.set(Threshold::BaselinePasses, 2);
    r.memoryBound = true;
    r.passes = 3;
    hits = t.borderline(fusion);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].threshold, Threshold::BaselinePasses);
    EXPECT_TRUE(hits[0].launchBoundTest);
    // A margin of 0 marks nothing.
    Thresholds off = th;
    off.borderlineMargin = 0;
    r.efficiency = 0.0118;
    EXPECT_TRUE(t.borderline(off).empty());
}

// Level-3 MobileNetV2 on one H200 lease: eager 2.03 ms in one run (launch-bound: 203 launches x
// 6.5 us, limit 2.64 ms) and 3.71 ms in the next (flagged at efficiency 0.032). Its kernels' GPU
// time, replayed from a CUDA graph, should not move with the host (not yet measured: the replay
// times below are made up; the floor, 0.12 ms, is that lease's). Where a replay was measured, a verdict that it would not
// give is the host's and is marked, however far from any threshold or limit.
TEST(Borderline, AVerdictTheReplayedGpuTimeWouldNotGiveIsTheHosts) {
    TaskResult t;
    t.id = "L3-20";
    t.inefficiency = InefficiencyReport{};
    auto& r = *t.inefficiency;
    r.launches = 203;
    r.launchMs = 0.0065;
    r.memoryFloorMs = 0.02;
    r.computeFloorMs = 0.12;
    r.floorMs = 0.12;
    r.eagerMs = 3.71;
    r.efficiency = r.floorMs / r.eagerMs;
    r.launchBound = r.eagerMs <= r.launchBoundLimitMs();
    const Thresholds th = Thresholds::defaults();
    ASSERT_FALSE(r.launchBound);
    ASSERT_TRUE(t.flagged(Criterion::BaselineInefficiency, th));
    EXPECT_TRUE(t.borderline(th).empty()); // no replay measured: nothing to compare with
    r.graphLaunchMs = 0.003;
    r.graphMs = 0.9;
    // On the replay: floor max(0.02, 0.12, one replayed kernel 0.003) = 0.12 ms, efficiency 0.133;
    // and 0.9 ms <= 2 x 203 x 0.003 = 1.218 ms: launch-bound. Neither allows the efficiency flag.
    const auto g = onGraphReplay(r);
    ASSERT_TRUE(g.has_value());
    EXPECT_DOUBLE_EQ(g->eagerMs, 0.9);
    EXPECT_DOUBLE_EQ(g->floorMs, 0.12);
    EXPECT_NEAR(g->efficiency, 0.12 / 0.9, 1e-12);
    EXPECT_TRUE(g->launchBound);
    EXPECT_FALSE(inefficiencyVerdict(*g, th).efficiency);
    auto hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].threshold, Threshold::BaselineEfficiency);
    EXPECT_TRUE(hits[0].hostDispatch);
    EXPECT_FALSE(hits[0].launchBoundTest);
    EXPECT_EQ(borderlineText(hits[0], th.borderlineMargin),
              "borderline: the host's dispatch is 76% of the eager 3.71 ms (replayed from a CUDA graph: 0.9 ms), "
              "and on the replayed time the efficiency rule's verdict differs");
    // The flag stays: the mark says what it rests on.
    EXPECT_TRUE(t.flagged(Criterion::BaselineInefficiency, th));
    // A task whose kernels themselves are slow keeps its verdict on the replay: no mark.
    r.graphMs = 3.5;
    EXPECT_TRUE(t.borderline(th).empty());
    // The other way round: launch-bound on the eager time, flagged on the replay, also the host's.
    r.eagerMs = 2.03;
    r.efficiency = r.floorMs / r.eagerMs;
    r.launchBound = r.eagerMs <= r.launchBoundLimitMs();
    r.graphMs = 1.9; // 1.9 > 1.218: not launch-bound there, efficiency 0.063 -- still passes
    EXPECT_TRUE(t.borderline(th).empty());
    r.computeFloorMs = r.floorMs = 0.05; // efficiency on the replay 0.026: flagged there only
    r.efficiency = r.floorMs / r.eagerMs;
    hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_TRUE(hits[0].hostDispatch);
    EXPECT_FALSE(t.flagged(Criterion::BaselineInefficiency, th));
    // A margin of 0 marks nothing, this included.
    Thresholds off = th;
    off.borderlineMargin = 0;
    EXPECT_TRUE(t.borderline(off).empty());
}

TEST(Borderline, ZerosPassNearItsTolerance) {
    TaskResult t = rangeTask(-0.0098, 0.0098, {});
    Thresholds th = Thresholds::defaults();
    th.set(Threshold::OutputRange, 1e-3); // leave zeros pass alone in play
    ASSERT_TRUE(t.flagged(Criterion::ZerosPass, th));
    const auto hits = t.borderline(th);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].threshold, Threshold::ZerosPassAtol);
    EXPECT_NEAR(hits[0].metric, 0.0098 / (0.01 + 0.01 * 0.0098), 1e-6);
    EXPECT_EQ(borderlineText(hits[0], 0.1), "borderline: tolerance used 0.97 is within 10% of 1");
    t = rangeTask(-0.005, 0.005, {});
    EXPECT_TRUE(t.borderline(th).empty());
}

TEST(Borderline, StoredWithTheThresholdsAndListedInTheCsv) {
    RunResults r;
    r.thresholds = Thresholds::defaults();
    r.thresholds.borderlineMargin = 0.25;
    TaskResult t = rangeTask(-0.0098, 0.0098, {0.0});
    t.axes.run = true;
    t.axes.perAxis = {0.0097, 0.5};
    r.tasks.push_back(t);
    const std::string json = resultsToJson(r);
    EXPECT_NE(json.find("\"borderline_margin\": 0.25"), std::string::npos) << json;
    EXPECT_NE(json.find("\"borderline\": [\n    \"output_range\",\n    \"output_axes\",\n    \"zeros_pass\"\n   ]"),
              std::string::npos)
        << json;
    EXPECT_DOUBLE_EQ(resultsFromJson(json, "b.json").thresholds.borderlineMargin, 0.25);
    const std::string csv = resultsToCsv(r, r.thresholds);
    // max |value| 0.0098 against output_range < 0.01, the axes, and zeros pass: each key once.
    EXPECT_NE(csv.find(",0.25,output_range;output_axes;zeros_pass,"), std::string::npos) << csv;

    // Profiles carry it too; files without it read the default; a negative margin is an error.
    const Thresholds p = parseProfile(profileToJson(r.thresholds), "p.json");
    EXPECT_DOUBLE_EQ(p.borderlineMargin, 0.25);
    EXPECT_DOUBLE_EQ(parseProfile(R"({"kind":"kernelsieve.profile","thresholds":{}})", "o.json").borderlineMargin, 0.1);
    EXPECT_THROW(parseProfile(R"({"kind":"kernelsieve.profile","thresholds":{"borderline_margin":-1}})", "n.json"),
                 Error);
}

// /proc's "Key:   N kB" lines in bytes: a key matches whole (Rss is not RssAnon), a missing key or
// file gives 0; the real files have the counts the engine and the filter driver read.
TEST(ProcInfo, ReadsWholeKeysInBytes) {
    const std::string path = ::testing::TempDir() + "/ks_status.txt";
    {
        std::ofstream f(path);
        f << "Name:\tworker\nRssAnon:\t  2048 kB\nRssFile:\t    12 kB\nVmHWM:\t 4096 kB\nThreads:\t9\n";
    }
    EXPECT_EQ(ks::procBytes(path, {"VmHWM", "Rss", "RssAnon", "RssFile", "Missing"}),
              (std::vector<int64_t>{4096 * 1024, 0, 2048 * 1024, 12 * 1024, 0}));
    EXPECT_EQ(ks::procBytes(path + ".gone", {"RssAnon"}), std::vector<int64_t>{0});
    std::remove(path.c_str());
    const std::vector<int64_t> mem = ks::procBytes("/proc/meminfo", {"MemTotal", "MemAvailable"});
    EXPECT_GT(mem[0], int64_t{256} << 20);
    EXPECT_GT(mem[1], 0);
    EXPECT_LE(mem[1], mem[0]);
    const std::vector<int64_t> self = ks::procBytes("/proc/self/status", {"VmHWM", "RssAnon", "RssFile"});
    EXPECT_GT(self[1], 0);
    EXPECT_GT(self[2], 0);
    EXPECT_LE(self[1] + self[2], self[0]);
}
