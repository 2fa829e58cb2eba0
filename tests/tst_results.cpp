// SPDX-License-Identifier: MIT
#include "ks/core/analysisreports.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"
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
    EXPECT_EQ(header.rfind("Task ID,Task Name,Output Range,Output Std,Output Axes,Input Impact,", 0), 0u) << header;
    // Filters 5-6 were not run for these tasks: empty cells, never True or False.
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,True,True,True,,,True,1,activation,ok,6.1e-05,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\nL1-12,\"12_Matmul,with \"\"diag\"\"\",False,False,False,False,,,False,"), std::string::npos) << csv;
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

TEST(Criteria, SixCriteriaEightThresholdsAndKeys) {
    ASSERT_EQ(criteria().size(), 6u);
    EXPECT_STREQ(criterionInfo(Criterion::BaselineInefficiency).key, "baseline_inefficiency");
    EXPECT_STREQ(criterionInfo(Criterion::BaselineInefficiency).label, "Baseline Inefficiency");
    EXPECT_STREQ(criterionInfo(Criterion::RedundantComputation).key, "redundant_computation");
    EXPECT_STREQ(criterionInfo(Criterion::RedundantComputation).label, "Redundant Computation");
    EXPECT_EQ(thresholdsOf(Criterion::BaselineInefficiency),
              (std::vector<Threshold>{Threshold::BaselineRewriteSpeedup, Threshold::BaselineEfficiency,
                                      Threshold::BaselinePasses}));
    EXPECT_EQ(thresholdsOf(Criterion::OutputStd), std::vector<Threshold>{Threshold::OutputStd});
    const Thresholds d = Thresholds::defaults();
    EXPECT_EQ(d.values.size(), 8u);
    EXPECT_DOUBLE_EQ(d.value(Threshold::BaselineRewriteSpeedup), 2.0);
    EXPECT_DOUBLE_EQ(d.value(Threshold::BaselineEfficiency), 0.05);
    EXPECT_DOUBLE_EQ(d.value(Threshold::BaselinePasses), 2.0);
    EXPECT_DOUBLE_EQ(d.value(Threshold::RedundantFlopFraction), 0.0);
    EXPECT_EQ(thresholdFromKey("baseline_passes"), Threshold::BaselinePasses);
    EXPECT_FALSE(thresholdFromKey("baseline_inefficiency")); // a criterion, not a threshold
    EXPECT_EQ(thresholdRuleText(Threshold::BaselineRewriteSpeedup, 2), "baseline_rewrite_speedup >= 2");
    EXPECT_EQ(thresholdRuleText(Threshold::OutputRange, 0.01), "output_range < 0.01");
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
    r.efficiency = 0.5;

    // Passes: only for a memory-bound task, at or above the bound; 0 means not measured.
    r.passes = 2.0;
    r.memoryBound = false;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);
    r.memoryBound = true;
    EXPECT_TRUE(inefficiencyVerdict(r, th).passes);
    r.passes = 1.99;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);
    th.set(Threshold::BaselinePasses, 0.0);
    r.passes = 0.0;
    EXPECT_FALSE(inefficiencyVerdict(r, th).passes);

    // A report with an error flags nothing.
    InefficiencyReport bad = sampleInefficiency();
    EXPECT_TRUE(inefficiencyVerdict(bad, Thresholds::defaults()).flagged());
    bad.error = "task L1-12: boom";
    EXPECT_FALSE(inefficiencyVerdict(bad, Thresholds::defaults()).flagged());
}

TEST(FlagRule, RedundancyAnyRedundantOpByDefault) {
    Thresholds th = Thresholds::defaults();
    RedundancyReport r;
    r.totalFlops = 100;
    EXPECT_FALSE(redundancyFlagged(r, th)); // nothing redundant, even at t = 0
    r.unused.push_back({"b", true, "never used"});
    EXPECT_TRUE(redundancyFlagged(r, th)); // 0% of FLOPs, but an unused parameter
    th.set(Threshold::RedundantFlopFraction, 0.25);
    EXPECT_FALSE(redundancyFlagged(r, th));
    r.redundantFlops = 25; // exactly the bound
    EXPECT_TRUE(redundancyFlagged(r, th));
    r.redundantFlops = 24.9;
    EXPECT_FALSE(redundancyFlagged(r, th));
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
    EXPECT_EQ(inefficiencySummary(r, th), "2.5 passes");
    r.passes = 1.2;
    EXPECT_EQ(inefficiencySummary(r, th), "eff 0.5"); // passed: the efficiency
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
    c.threads = 2;
    c.method = "copy_";
    c.source = "/tmp/ceilings-cpu.json";
    r.run.ceilings = c;
    r.thresholds = Thresholds::defaults();
    r.thresholds.set(Threshold::BaselinePasses, 3.5);
    TaskResult t = sampleTask();
    t.inefficiency = sampleInefficiency();
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
    EXPECT_DOUBLE_EQ(b.inefficiency->passes, 1.5);
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
    const std::string csv = resultsToCsv(r, r.thresholds);
    // Not run is an empty cell, never True or False.
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,False,,,,,True,"), std::string::npos) << csv;
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
                           "Redundant Computation,Any Flag,Level,Category,Status,output_range_metric",
                           0),
              0u)
        << header;
    for (const char* col :
         {",baseline_rewrite_speedup,baseline_rewrite_rule,baseline_efficiency,baseline_passes,baseline_memory_bound,",
          ",redundant_flop_fraction,redundant_nodes,redundant_unused_args,",
          ",baseline_rewrite_speedup_threshold,baseline_efficiency_threshold,baseline_passes_threshold,"
          "redundant_flop_fraction_threshold,output_axes_argmin,"})
        EXPECT_NE(header.find(col), std::string::npos) << col;
    EXPECT_NE(csv.find("\r\nL1-23,23_Softmax,True,True,True,True,True,True,True,1,activation,ok,"), std::string::npos)
        << csv;
    EXPECT_NE(csv.find(",34.5,diag-matmul,3.5,1.5,False,1.52,5.32,CPU,rewrite,0.5,1,1,"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",0.01,0.01,0.01,0.01,2,0.05,2,0,"), std::string::npos) << csv;
    // The failed analysis: an empty cell, and its error in the error column, named.
    EXPECT_NE(csv.find("\r\nL1-99,broken,True,True,True,True,,,True,"), std::string::npos) << csv;
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
        EXPECT_EQ(parseProfile(profileToJson(*b), name), *b);
    }
    EXPECT_DOUBLE_EQ(builtinProfile("strict")->value(Threshold::BaselineRewriteSpeedup), 5.0);
}

TEST(Criteria, RuleTextSaysTheWholeRule) {
    Thresholds t = Thresholds::defaults();
    t.set(Threshold::BaselinePasses, 3);
    EXPECT_EQ(criterionRuleText(Criterion::OutputAxes, t), "output_axes < 0.01");
    EXPECT_EQ(criterionRuleText(Criterion::BaselineInefficiency, t),
              "baseline_rewrite_speedup >= 2 or baseline_efficiency < 0.05 or (memory-bound and baseline_passes >= 3)");
    EXPECT_EQ(criterionRuleText(Criterion::RedundantComputation, t),
              "redundant ops or unused arguments and redundant_flop_fraction >= 0");
}
