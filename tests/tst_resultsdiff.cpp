// SPDX-License-Identifier: MIT
// ks::diffResults: the comparison behind `kernelsieve-cli diff` and the workbench's compare view
// (issue 14, point 2), on the workbench's fixture and edited copies of it.
#include "ks/core/results.h"
#include "ks/core/resultsdiff.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ks;

namespace {

RunResults fixture() {
    const std::string path = KS_TEST_DATA "/../ui/data/results.json";
    return resultsFromJson(readFile(path), path);
}

TaskResult& task(RunResults& r, const std::string& id) {
    return *std::find_if(r.tasks.begin(), r.tasks.end(),
                         [&](const TaskResult& t) { return t.id == id; });
}

const TaskDiff& row(const ResultsDiff& d, const std::string& id) {
    return *std::find_if(d.tasks.begin(), d.tasks.end(),
                         [&](const TaskDiff& t) { return t.id == id; });
}

const CriterionDiff& cell(const ResultsDiff& d, const std::string& id, Criterion c) {
    return row(d, id).criteria[static_cast<size_t>(c)];
}

} // namespace

TEST(ResultsDiff, IdenticalFilesDifferInNothing) {
    const RunResults a = fixture();
    const ResultsDiff d = diffResults(a, a.thresholds, a, a.thresholds);
    EXPECT_FALSE(d.anyDiffers());
    EXPECT_EQ(d.tasks.size(), a.tasks.size());
    EXPECT_TRUE(d.run.empty());
    EXPECT_EQ(d.onlyInA + d.onlyInB, 0);
    EXPECT_EQ(d.flaggedA, d.flaggedB);
    // L1-12: the seed's Table 1, flagged for baseline inefficiency on both sides, delta 0.
    const auto& ie = cell(d, "L1-12", Criterion::BaselineInefficiency);
    EXPECT_EQ(ie.a, FlagState::Flagged);
    EXPECT_EQ(ie.b, FlagState::Flagged);
    EXPECT_DOUBLE_EQ(ie.delta(), 0.0);
    EXPECT_EQ(cell(d, "L1-4", Criterion::OutputRange).a, FlagState::NotRun); // skipped task
    EXPECT_EQ(cell(d, "L3-11", Criterion::OutputRange).a, FlagState::Error); // out of memory
    const std::string text =
        resultsDiffToText(d, a, a.thresholds, "a.json", a, a.thresholds, "b.json");
    EXPECT_NE(text.find("The runs agree"), std::string::npos) << text;
    EXPECT_NE(text.find("0 of 16 tasks differ in a flag."), std::string::npos) << text;
}

TEST(ResultsDiff, FlagsMetricsTasksAndRunSettings) {
    const RunResults a = fixture();
    RunResults b = fixture();
    b.run.seeds = 100;
    b.run.deviceName = "NVIDIA H100";
    task(b, "L2-13r").range.maxAbs = 0.005;      // now inside (-0.01, 0.01): flagged in B
    task(b, "L1-23").status = TaskStatus::Error; // failed in B: listed, no flag difference
    task(b, "L1-23").range.run = task(b, "L1-23").outputStd.run = task(b, "L1-23").axes.run =
        task(b, "L1-23").inputImpact.run = false;
    task(b, "L1-23").error = "task L1-23: out of memory";
    b.tasks.erase(std::find_if(b.tasks.begin(), b.tasks.end(),
                               [](const TaskResult& t) { return t.id == "KS-3"; }));
    TaskResult extra = task(b, "L1-1");
    extra.id = "L1-2";
    extra.number = 2;
    b.tasks.push_back(extra);

    const ResultsDiff d = diffResults(a, a.thresholds, b, b.thresholds);
    EXPECT_TRUE(d.anyDiffers());
    EXPECT_EQ(d.differingTasks, 1);
    EXPECT_EQ(row(d, "L2-13r").differingCount(), 2); // range and zeros pass
    EXPECT_EQ(d.differing[static_cast<size_t>(Criterion::OutputRange)], 1);
    EXPECT_EQ(d.differing[static_cast<size_t>(Criterion::ZerosPass)], 1);
    EXPECT_EQ(
        d.flaggedB[static_cast<size_t>(Criterion::OutputRange)],
        d.flaggedA[static_cast<size_t>(Criterion::OutputRange)]); // L2-13r in, L1-23 (failed) out
    const auto& range = cell(d, "L2-13r", Criterion::OutputRange);
    EXPECT_TRUE(range.differs());
    EXPECT_EQ(range.a, FlagState::Passed);
    EXPECT_EQ(range.b, FlagState::Flagged);
    EXPECT_NEAR(range.delta(), 0.005 - 1.21, 1e-12);
    EXPECT_TRUE(row(d, "L2-13r").anyFlagB);
    // A failed task is not a flag difference, and has no delta.
    const auto& failed = cell(d, "L1-23", Criterion::OutputRange);
    EXPECT_EQ(failed.b, FlagState::Error);
    EXPECT_FALSE(failed.differs());
    EXPECT_TRUE(std::isnan(failed.delta()));
    // Tasks of one side only: A's order first, B's extras after.
    EXPECT_EQ(d.tasks.size(), a.tasks.size() + 1);
    EXPECT_EQ(d.onlyInA, 1);
    EXPECT_EQ(d.onlyInB, 1);
    EXPECT_FALSE(row(d, "KS-3").inB());
    EXPECT_EQ(d.tasks.back().id, "L1-2");
    EXPECT_FALSE(d.tasks.back().inA());
    EXPECT_EQ(cell(d, "L1-2", Criterion::OutputStd).a, FlagState::Missing);
    // What the runs differ in.
    std::vector<std::string> what;
    for (const auto& r : d.run)
        what.push_back(r.what);
    EXPECT_EQ(what, (std::vector<std::string>{"device", "seeds"}));
    EXPECT_EQ(d.run[1].a, "5");
    EXPECT_EQ(d.run[1].b, "100");

    const std::string text =
        resultsDiffToText(d, a, a.thresholds, "h200.json", b, b.thresholds, "h100.json");
    EXPECT_NE(text.find("seeds                     5 | 100"), std::string::npos) << text;
    EXPECT_NE(text.find("1 of 17 tasks differ in a flag (1 only in A, 1 only in B):"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("output_range            ok   1.21  FLAG 0.005"), std::string::npos)
        << text;
    EXPECT_NE(text.find("-1.2"), std::string::npos) << text;

    const std::string csv = resultsDiffToCsv(d, a, b);
    EXPECT_EQ(
        csv.substr(0, csv.find("\r\n")).substr(0, 150),
        std::string(
            "Task ID,Task Name,Level,Category,In A,In B,Status A,Status B,Differs,Differing "
            "Criteria,"
            "Any Flag A,Any Flag B,output_range_a,output_range_b,output_range_metric_a,output_")
            .substr(0, 150));
    // L2-13r: range flags in B, and with it zeros pass (a range that small passes allclose as 0).
    EXPECT_NE(
        csv.find(
            "\r\nL2-13r,13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling (repaired),2,conv-fusion,"
            "True,True,ok,ok,True,output_range;zeros_pass,False,True,False,True,1.21,0.005,-1."
            "205,"),
        std::string::npos)
        << csv;
    EXPECT_NE(csv.find("\r\nKS-3,"), std::string::npos);
    EXPECT_NE(csv.find("\r\nL1-2,"), std::string::npos);
    const auto lines = std::count(csv.begin(), csv.end(), '\n');
    EXPECT_EQ(lines, 1 + 17);
}

// Two threshold profiles on one file, and re-thresholding in place (the compare view's path).
TEST(ResultsDiff, ThresholdProfilesAndRethreshold) {
    const RunResults a = fixture();
    Thresholds loose = a.thresholds;
    loose.profile = "loose";
    loose.set(Criterion::OutputRange, 2.0);
    ResultsDiff d = diffResults(a, a.thresholds, a, loose);
    // range < 2 also flags L2-13 (1.52), L2-13r (1.21), L2-66 (1.0), KS-3 (0.76).
    int expected = 0;
    for (const auto& t : a.tasks)
        if (t.criterionRun(Criterion::OutputRange) &&
            t.flagged(Criterion::OutputRange, loose) !=
                t.flagged(Criterion::OutputRange, a.thresholds))
            ++expected;
    EXPECT_GT(expected, 0);
    EXPECT_EQ(d.differing[static_cast<size_t>(Criterion::OutputRange)], expected);
    ASSERT_EQ(d.run.size(), 1u);
    EXPECT_EQ(d.run[0].what, "output_range");
    EXPECT_TRUE(cell(d, "L2-13r", Criterion::OutputRange).differs());
    EXPECT_DOUBLE_EQ(cell(d, "L2-13r", Criterion::OutputRange).delta(), 0.0); // same data

    rethresholdDiff(d, a, loose, a, loose);
    EXPECT_FALSE(d.anyDiffers());
    EXPECT_TRUE(d.run.empty());
    EXPECT_EQ(d.tasks.size(), a.tasks.size());
}

TEST(ResultsDiff, CellTexts) {
    const RunResults a = fixture();
    EXPECT_EQ(flagCellText(a.find("L1-12"), Criterion::BaselineInefficiency, a.thresholds),
              "51.1x diag-matmul");
    EXPECT_EQ(flagCellText(a.find("L1-23"), Criterion::OutputRange, a.thresholds), "0.00261");
    EXPECT_EQ(flagCellText(a.find("L1-4"), Criterion::OutputRange, a.thresholds), "not run");
    EXPECT_EQ(flagCellText(nullptr, Criterion::OutputRange, a.thresholds), "missing");
}

// A filter-5 flag that turns on efficiency alone (no rewrite on either side, best speedup 1 on
// both) has its delta in efficiency, named as such, in the text and the CSV; before, it read 0.
TEST(ResultsDiff, FilterFiveDeltaIsOfTheRuleThatFlagged) {
    const RunResults a = fixture();
    RunResults b = fixture();
    TaskResult& t = task(b, "L1-33");
    ASSERT_TRUE(t.inefficiency);
    t.inefficiency->efficiency = 0.01; // below the 0.05 bound: flagged by efficiency in B only
    const ResultsDiff d = diffResults(a, a.thresholds, b, b.thresholds);
    const auto& ie = cell(d, "L1-33", Criterion::BaselineInefficiency);
    ASSERT_TRUE(ie.differs());
    EXPECT_EQ(ie.a, FlagState::Passed);
    EXPECT_EQ(ie.b, FlagState::Flagged);
    EXPECT_EQ(ie.metricName, "efficiency");
    EXPECT_NEAR(ie.metricA, 0.067855271991911, 1e-12);
    EXPECT_NEAR(ie.metricB, 0.01, 1e-12);
    EXPECT_NEAR(ie.delta(), 0.01 - 0.067855271991911, 1e-12);
    // A rewrite flag keeps the best rewrite speedup as its metric.
    EXPECT_EQ(cell(d, "L1-12", Criterion::BaselineInefficiency).metricName, "");
    const std::string text = resultsDiffToText(d, a, a.thresholds, "a.json", b, b.thresholds, "b.json");
    EXPECT_NE(text.find("-0.0579 (efficiency)"), std::string::npos) << text;
    const std::string csv = resultsDiffToCsv(d, a, b);
    EXPECT_NE(csv.find(",baseline_inefficiency_metric,Borderline A,Borderline B\r\n"), std::string::npos);
    const auto rowAt = csv.find("\r\nL1-33,");
    ASSERT_NE(rowAt, std::string::npos);
    const std::string line = csv.substr(rowAt + 2, csv.find("\r\n", rowAt + 2) - rowAt - 2);
    EXPECT_NE(line.find(",efficiency,,"), std::string::npos) << line; // then neither side borderline
}

// A flag that differs where one side sits on filter 5's launch-bound limit (level-3 ShuffleNet,
// H200 2026-12-05: flagged in one lease, launch-bound in another) is marked borderline on that
// side: "FLAG~" in the text with a count of such lines, the criterion's key in the CSV.
TEST(ResultsDiff, MarksTheSideWhereTheVerdictIsBorderline) {
    const RunResults a = fixture();
    RunResults b = fixture();
    TaskResult& t = task(b, "L1-33");
    ASSERT_TRUE(t.inefficiency);
    auto& r = *t.inefficiency;
    r.efficiency = 0.0118;
    r.launches = 234;
    r.launchMs = 0.00944;
    r.eagerMs = 4.71; // 1.07 x the limit of 4.42 ms: not launch-bound, flagged, borderline
    r.launchBound = false;
    ResultsDiff d = diffResults(a, a.thresholds, b, b.thresholds);
    const auto& ie = cell(d, "L1-33", Criterion::BaselineInefficiency);
    ASSERT_TRUE(ie.differs());
    EXPECT_FALSE(ie.borderlineA);
    EXPECT_TRUE(ie.borderlineB);
    std::string text = resultsDiffToText(d, a, a.thresholds, "a.json", b, b.thresholds, "b.json");
    EXPECT_NE(text.find("FLAG~ "), std::string::npos) << text;
    EXPECT_NE(text.find("launch-bound limit): 1 of the 1 differing flags."), std::string::npos) << text;
    const std::string csv = resultsDiffToCsv(d, a, b);
    const auto rowAt = csv.find("\r\nL1-33,");
    ASSERT_NE(rowAt, std::string::npos);
    const std::string line = csv.substr(rowAt + 2, csv.find("\r\n", rowAt + 2) - rowAt - 2);
    EXPECT_EQ(line.substr(line.size() - std::string(",efficiency,,baseline_inefficiency").size()),
              ",efficiency,,baseline_inefficiency")
        << line;
    // Far from the limit the same flag is no longer marked.
    r.eagerMs = 9.0;
    rethresholdDiff(d, a, a.thresholds, b, b.thresholds);
    EXPECT_TRUE(cell(d, "L1-33", Criterion::BaselineInefficiency).differs());
    EXPECT_FALSE(cell(d, "L1-33", Criterion::BaselineInefficiency).borderlineB);
    text = resultsDiffToText(d, a, a.thresholds, "a.json", b, b.thresholds, "b.json");
    EXPECT_EQ(text.find("FLAG~"), std::string::npos) << text;
    EXPECT_EQ(text.find("differing flags."), std::string::npos) << text;
}
