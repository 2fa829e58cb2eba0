// SPDX-License-Identifier: MIT
// Filter 6 (redundant computation): one small task per redundancy pattern under
// tests/data/redundancy/ with the exact nodes it must report, negatives that must report nothing,
// and the built-in suite's redundant (KS-*, L2-13) and clean (L1-1, L1-23, L1-36) tasks.

#include "ks/core/analysisreports.h"
#include "ks/core/redundancy.h"
#include "ks/core/suite.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace {

const ks::Suite& testSuite() {
    static const ks::Suite s = ks::loadSuiteDir(KS_TEST_DATA "/redundancy");
    return s;
}

const ks::Suite& builtinSuite() {
    static const ks::Suite s = ks::loadSuite("builtin");
    return s;
}

ks::TaskSpec taskById(const ks::Suite& s, const std::string& id) {
    for (const auto& t : s.tasks)
        if (t.id == id) return t;
    throw std::runtime_error("no task " + id);
}

// Filter 6 on the CPU at the small preset, 3 seeds.
ks::RedundancyOptions cpuOptions() {
    ks::RedundancyOptions o;
    o.device = "cpu";
    o.preset = ks::Preset::Small;
    o.seeds = 3;
    return o;
}

ks::RedundancyReport analyze(const ks::TaskSpec& t) { return ks::analyzeRedundancy(t, cpuOptions()); }

// "kind op line" per reported node, in report order.
std::vector<std::string> summary(const ks::RedundancyReport& r) {
    std::vector<std::string> out;
    for (const auto& n : r.nodes)
        out.push_back(std::string(ks::redundantKindName(n.kind)) + " " + n.op + " " + std::to_string(n.line));
    return out;
}

std::map<std::string, std::string> unused(const ks::RedundancyReport& r) {
    std::map<std::string, std::string> out;
    for (const auto& u : r.unused) out[u.name] = u.reason;
    return out;
}

struct Case {
    const char* id;
    std::vector<std::string> nodes;
    std::map<std::string, std::string> unused;
};

// Keeps CTest's test names readable (gtest would dump the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.id; }

class Pattern : public testing::TestWithParam<Case> {};

TEST_P(Pattern, ReportsExactlyTheseNodes) {
    const Case& c = GetParam();
    const auto r = analyze(taskById(testSuite(), c.id));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(summary(r), c.nodes);
    EXPECT_EQ(unused(r), c.unused);
    bool onlyCopies = !r.nodes.empty();
    for (const auto& n : r.nodes)
        onlyCopies = onlyCopies && n.bytes > 0;
    if (c.nodes.empty() || onlyCopies) { // a copy does no FLOPs: its cost is its bytes
        EXPECT_EQ(r.redundantFlops, 0.0);
    } else {
        EXPECT_GT(r.flopFraction(), 0.0);
        EXPECT_LE(r.flopFraction(), 1.0);
    }
    for (const auto& n : r.nodes) {
        EXPECT_FALSE(n.reason.empty());
        EXPECT_FALSE(n.sourceText.empty()) << n.op;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Redundancy, Pattern,
    testing::Values(
        Case{"R-dead-branch", {}, {{"unused_w", "never used"}}},
        Case{"R-dead-shape", {"dead aten::matmul 3"}, {{"p", "only feeds dead ops"}}},
        Case{"R-softmax-size1",
             {"feeds-redundant aten::sum 3", "constant aten::softmax 4", "no-effect aten::mul 5"},
             {}},
        // A constant that is NaN on the all-zero input: the checks after it judge that run against
        // the graph with the constant, not against the original's NaN.
        Case{"R-constant-nan-on-zero",
             {"feeds-redundant aten::abs 3", "constant aten::div 4", "no-effect aten::mul 5"},
             {}},
        // The task writes into its input: every run (observing, saving the cuts, checking) must
        // take a copy, or the doubled input grows from run to run and the clamp starts to bind.
        Case{"R-writes-into-input", {"no-effect aten::clamp 4"}, {}},
        Case{"R-logsoftmax-size1",
             {"constant aten::log_softmax 3"},
             {{"x", "only feeds redundant ops"}}},
        Case{"R-reduce-size1", {"no-effect aten::mean 3", "no-effect aten::sum 4"}, {}},
        Case{"R-relu-after-sigmoid", {"no-effect aten::relu 4"}, {}},
        Case{"R-clamp-never-binds", {"no-effect aten::clamp 4"}, {}},
        Case{"R-mul-one-add-zero", {"no-effect aten::mul 3", "no-effect aten::add 4"}, {}},
        Case{"R-dropout-eval", {"no-effect aten::dropout 3"}, {}},
        Case{"R-norm-twice", {"no-effect aten::layer_norm 4"}, {}},
        Case{"R-duplicate", {"duplicate aten::matmul 4"}, {}},
        // Bypasses that need a reshape, a multi-output op, a copy, an expand.
        Case{"R-reduce-size1-nokeep", {"no-effect aten::mean 3"}, {}},
        Case{"R-max-indices", {"no-effect aten::max 3"}, {}},
        Case{"R-clone", {"no-effect aten::clone 4"}, {}},
        Case{"R-add-zeros-broadcast",
             {"feeds-redundant aten::zeros 3", "no-effect aten::add 4"},
             {}},
        // In-place ops and the check runs from a cut: the tail's mul_ writes into a saved value
        // after the relu's bypass (that write must not reach the mul's check), and a value written
        // after the relu cannot be saved before it.
        Case{"R-inplace-tail", {"no-effect aten::mul 5"}, {}},
        Case{"R-inplace-after-cut", {"no-effect aten::relu 5"}, {}},
        // A loop after every candidate: checks build interpreter code, not node by node.
        Case{"R-loop-after", {"no-effect aten::mul 3"}, {}},
        // A saved view of the input and the input itself stay one in a tail.
        Case{"N-inplace-into-input", {}, {}},
        Case{"N-softmax-real-axis", {}, {}}, Case{"N-clamp-binds", {}, {}},
        Case{"N-eps-guard", {}, {}}),
    [](const testing::TestParamInfo<Case>& i) {
        std::string n = i.param.id;
        for (char& ch : n)
            if (ch == '-') ch = '_';
        return n;
    });

// A removable copy does no FLOPs: it is reported with the bytes it reads and writes (B=4, D=8
// floats, read once and written once), and it is a minor finding.
TEST(Redundancy, CopiesReportTheirBytes) {
    const auto r = analyze(taskById(testSuite(), "R-clone"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.nodes.size(), 1u);
    EXPECT_EQ(r.nodes[0].flops, 0.0);
    EXPECT_DOUBLE_EQ(r.nodes[0].bytes, 2.0 * 4 * 8 * 4);
    EXPECT_NE(r.nodes[0].reason.find("moves 256 bytes"), std::string::npos) << r.nodes[0].reason;
    EXPECT_FALSE(ks::redundancyMajor(r));
    const auto j = ks::redundancyReportsToJson({r}, {});
    EXPECT_NE(j.find("\"bytes\": 256"), std::string::npos) << j;
    // and it reads back
    const auto back = ks::redundancyReportFromJson(nlohmann::json::parse(j)["tasks"][0]);
    ASSERT_EQ(back.nodes.size(), 1u);
    EXPECT_DOUBLE_EQ(back.nodes[0].bytes, 256.0);
}

TEST(Redundancy, FlopsCountMatmulsAndElementwiseOps) {
    // R-duplicate at B=4, D=8: two matmuls of 2*4*8*8 and three elementwise ops of 32.
    const auto r = analyze(taskById(testSuite(), "R-duplicate"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_DOUBLE_EQ(r.totalFlops, 2 * 512.0 + 3 * 32.0);
    EXPECT_DOUBLE_EQ(r.redundantFlops, 512.0);
}

class BuiltinRedundant : public testing::TestWithParam<const char*> {};

TEST_P(BuiltinRedundant, ReportsSomething) {
    const auto r = analyze(taskById(builtinSuite(), GetParam()));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.hasRedundancy());
}

INSTANTIATE_TEST_SUITE_P(Redundancy, BuiltinRedundant,
                         testing::Values("KS-1", "KS-2", "KS-3", "KS-4", "KS-5", "KS-6", "KS-7", "KS-8", "KS-9",
                                         "KS-10", "L2-13"),
                         [](const testing::TestParamInfo<const char*>& i) {
                             std::string n = i.param;
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

class BuiltinClean : public testing::TestWithParam<const char*> {};

TEST_P(BuiltinClean, ReportsNothing) {
    const auto r = analyze(taskById(builtinSuite(), GetParam()));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(summary(r), std::vector<std::string>{});
    EXPECT_TRUE(r.unused.empty());
}

INSTANTIATE_TEST_SUITE_P(Redundancy, BuiltinClean, testing::Values("L1-1", "L1-23", "L1-36", "L2-13r"),
                         [](const testing::TestParamInfo<const char*>& i) {
                             std::string n = i.param;
                             for (char& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

// Severity: constant outputs, dead ops and never-used arguments flag by default; ops that merely
// change nothing (a clamp that never binds, x * 1, a sum over a size-1 axis) are reported and
// flag only when they cost at least redundant_flop_fraction (5%) of the task's FLOPs.
TEST(Redundancy, TrivialNoOpsAreReportedButDoNotFlagByDefault) {
    struct Expect {
        const char* id;
        bool major, flagged;
    };
    const ks::Thresholds t = ks::Thresholds::defaults();
    ASSERT_DOUBLE_EQ(t.value(ks::Threshold::RedundantFlopFraction), 0.05);
    ks::Thresholds every = t;
    every.set(ks::Threshold::RedundantFlopFraction, 0.0); // the rule before severity existed
    for (const Expect& e : {Expect{"KS-1", true, true},    // dead branch: two parameters never used
                            Expect{"KS-2", true, true},    // a matmul read only for its shape
                            Expect{"KS-3", true, true},    // softmax over a size-1 axis: a constant
                            Expect{"L2-13", true, true},   // the seed's broken task
                            Expect{"KS-10", false, true},  // a duplicated linear: half the FLOPs
                            Expect{"KS-4", false, false},  // sum over a size-1 axis
                            Expect{"KS-5", false, false},  // relu after sigmoid
                            Expect{"KS-6", false, false},  // a clamp that never binds
                            Expect{"KS-7", false, false},  // x * 1 + 0
                            Expect{"KS-8", false, false},  // dropout in eval mode
                            Expect{"KS-9", false, false}}) { // layer norm applied twice, after a linear
        SCOPED_TRACE(e.id);
        const auto r = analyze(taskById(builtinSuite(), e.id));
        ASSERT_TRUE(r.error.empty()) << r.error;
        EXPECT_TRUE(r.hasRedundancy());
        EXPECT_EQ(ks::redundancyMajor(r), e.major);
        EXPECT_EQ(ks::redundancyFlagged(r, t), e.flagged) << "redundant FLOPs " << r.flopFraction();
        EXPECT_TRUE(ks::redundancyFlagged(r, every));
        EXPECT_EQ(ks::redundancySummary(r).rfind("minor", 0) == 0, !e.major) << ks::redundancySummary(r);
    }
}

TEST(Redundancy, L2_13SoftmaxOverSize1AxisIsAConstant) {
    const auto r = analyze(taskById(builtinSuite(), "L2-13"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    bool softmaxConstant = false;
    for (const auto& n : r.nodes) softmaxConstant |= n.op == "aten::softmax" && n.kind == ks::RedundantNode::Kind::ConstantOutput;
    EXPECT_TRUE(softmaxConstant);
    EXPECT_GT(r.flopFraction(), 0.9); // the transposed conv only feeds the constant
}

// Check runs from a cut (a candidate's check runs only the graph after the latest cut before it,
// from saved values) give the verdicts of whole-graph runs on every pattern and built-in task, and
// they are what most checks run.
// Three ways to run the checks give the same reports: from a cut node by node (the default), from
// a cut in the interpreter, the whole graph in the interpreter (as before either).
TEST(Redundancy, CheckRunsFromACutGiveTheVerdictsOfWholeRuns) {
    int fromCut = 0, byNode = 0, runs = 0;
    for (const ks::Suite* suite : {&testSuite(), &builtinSuite()})
        for (const auto& t : suite->tasks) {
            SCOPED_TRACE(t.id);
            ks::RedundancyOptions o = cpuOptions();
            const auto cut = ks::analyzeRedundancy(t, o);
            o.nodeRuns = false;
            const auto code = ks::analyzeRedundancy(t, o);
            o.cutRuns = false;
            const auto whole = ks::analyzeRedundancy(t, o);
            for (const auto* other : {&code, &whole}) {
                ASSERT_EQ(cut.error, other->error);
                EXPECT_EQ(summary(cut), summary(*other));
                EXPECT_EQ(unused(cut), unused(*other));
                EXPECT_EQ(cut.opsExamined, other->opsExamined);
                EXPECT_EQ(cut.checkRuns, other->checkRuns);
                EXPECT_EQ(other->checkRunsByNode, 0);
            }
            EXPECT_EQ(code.checkRunsFromCut, cut.checkRunsFromCut);
            EXPECT_EQ(whole.checkRunsFromCut, 0);
            fromCut += cut.checkRunsFromCut;
            byNode += cut.checkRunsByNode;
            runs += cut.checkRuns;
        }
    EXPECT_GT(fromCut, runs / 2) << fromCut << " of " << runs << " check runs from a cut";
    EXPECT_GT(byNode, runs * 3 / 4) << byNode << " of " << runs << " check runs node by node";
}

// With one check run's arguments on the device at a time (what filter 6 falls back to when all of
// them do not fit), every pattern and built-in task gets the verdicts of holding them all; the
// run on the device is tried first, so fetches (each with its reference run) stay fewer than the
// check runs.
TEST(Redundancy, OneCheckSetAtATimeGivesTheVerdictsOfHoldingThemAll) {
    int references = 0, runs = 0;
    for (const ks::Suite* suite : {&testSuite(), &builtinSuite()})
        for (const auto& t : suite->tasks) {
            SCOPED_TRACE(t.id);
            ks::RedundancyOptions o = cpuOptions();
            const auto all = ks::analyzeRedundancy(t, o);
            o.oneCheckSet = true;
            const auto one = ks::analyzeRedundancy(t, o);
            ASSERT_EQ(all.error, one.error);
            EXPECT_EQ(summary(all), summary(one));
            EXPECT_EQ(unused(all), unused(one));
            EXPECT_EQ(all.opsExamined, one.opsExamined);
            EXPECT_FALSE(all.oneCheckSet);
            EXPECT_TRUE(one.oneCheckSet || !one.error.empty());
            EXPECT_EQ(all.referenceRuns, 0);
            EXPECT_EQ(one.checkRunsFromCut, 0);
            EXPECT_LE(one.referenceRuns, one.checkRuns);
            references += one.referenceRuns;
            runs += one.checkRuns;
        }
    std::printf("one check set at a time: %d fetches with a reference run for %d check runs\n", references, runs);
    EXPECT_GT(references, 0);
    EXPECT_LT(references, runs / 2) << references << " fetches for " << runs << " check runs";
}

// Out of memory in a check run is no verdict on its candidate: the analysis runs again with one
// check run's arguments on the device at a time and reports what holding them all would have.
TEST(Redundancy, OutOfMemoryInACheckRunsTheAnalysisAgainWithOneSet) {
    for (const char* id : {"KS-10", "KS-5", "L2-13"}) {
        SCOPED_TRACE(id);
        const ks::TaskSpec t = taskById(builtinSuite(), id);
        ks::RedundancyOptions o = cpuOptions();
        const auto all = ks::analyzeRedundancy(t, o);
        ASSERT_TRUE(all.error.empty()) << all.error;
        ASSERT_GT(all.checkRuns, 0);
        o.outOfMemoryAtCheckRun = all.checkRuns; // the last: most of the analysis was done
        const auto again = ks::analyzeRedundancy(t, o);
        ASSERT_TRUE(again.error.empty()) << again.error;
        EXPECT_TRUE(again.oneCheckSet);
        EXPECT_EQ(summary(all), summary(again));
        EXPECT_EQ(unused(all), unused(again));
        bool noted = false;
        for (const auto& n : again.notes) noted |= n.find("ran out of memory") != std::string::npos;
        EXPECT_TRUE(noted);
    }
}

// A substituted constant changes the all-zero input's output (|x| / |x|: NaN, then 1): saving the
// cuts' values compares that run with the graph as it is, so the cuts stay on (KernelBench L1-37,
// x / torch.norm(x), lost them on the GPU with "a second run of the graph differs from the first").
TEST(Redundancy, AConstantThatChangesTheZeroInputsOutputKeepsTheCuts) {
    const auto r = analyze(taskById(testSuite(), "R-constant-nan-on-zero"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.notes.empty()) << r.notes.front();
    EXPECT_GT(r.checkRunsFromCut, 0);
}

// Out of memory while saving the cuts' values for every check run (KernelBench level 1 on an
// 80 GiB GPU) keeps the first run's cuts, where most candidates fail, instead of none; the
// verdicts are those of the full save.
TEST(Redundancy, OutOfMemorySavingTheCutsKeepsTheFirstRunsCuts) {
    int tasks = 0;
    for (const ks::Suite* suite : {&testSuite(), &builtinSuite()})
        for (const auto& t : suite->tasks) {
            ks::RedundancyOptions o = cpuOptions();
            const auto all = ks::analyzeRedundancy(t, o);
            if (all.checkRunsFromCut == 0) continue;
            SCOPED_TRACE(t.id);
            ++tasks;
            o.outOfMemoryAtCutSave = 2;
            const auto first = ks::analyzeRedundancy(t, o);
            ASSERT_EQ(all.error, first.error);
            EXPECT_EQ(summary(all), summary(first));
            EXPECT_EQ(unused(all), unused(first));
            EXPECT_EQ(all.opsExamined, first.opsExamined);
            EXPECT_EQ(all.checkRuns, first.checkRuns);
            EXPECT_GT(first.checkRunsFromCut, 0);
            EXPECT_LE(first.checkRunsFromCut, all.checkRunsFromCut);
            bool noted = false;
            for (const auto& n : first.notes) noted |= n.find("the first check run's only") != std::string::npos;
            EXPECT_TRUE(noted);
        }
    EXPECT_GT(tasks, 20);
}

// The tail of R-inplace-tail writes in place into what a cut saved; without copying it first, the
// next check (the mul's) would read a doubled h and reject the mul.
TEST(Redundancy, TheTailOfACheckWritesIntoACopy) {
    const auto r = analyze(taskById(testSuite(), "R-inplace-tail"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.checkRunsFromCut, 0);
    EXPECT_EQ(summary(r), std::vector<std::string>{"no-effect aten::mul 5"});
}

// A loop (nested blocks) cannot run node by node: the checks of R-loop-after, all of which run it,
// build interpreter code instead; the loop's own ops are kept whole, with a note.
TEST(Redundancy, ALoopRunsInTheInterpreter) {
    const auto r = analyze(taskById(testSuite(), "R-loop-after"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.checkRuns, 0);
    EXPECT_EQ(r.checkRunsByNode, 0);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].find("prim::Loop with nested blocks is kept whole"), std::string::npos) << r.notes[0];
}

// A dropout in eval mode (or with p = 0) draws no random numbers, so a cut after it is usable: the
// relu's check runs only the relu.
TEST(Redundancy, ADropoutThatDrawsNothingLeavesCutsAfterIt) {
    const auto r = analyze(taskById(testSuite(), "R-dropout-eval"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.checkRunsFromCut, 0);
}

// A dropout that returns its input by its constant arguments is reported without a check run
// (filter 6's time on DenseNet, whose layers each end in Dropout(0.0)); the relu after it still
// has its check runs.
TEST(Redundancy, ADropoutThatReturnsItsInputNeedsNoCheckRun) {
    const auto r = analyze(taskById(testSuite(), "R-dropout-eval"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(r.nodes.size(), 1u);
    EXPECT_EQ(r.nodes[0].op, "aten::dropout");
    EXPECT_NE(r.nodes[0].reason.find("(train = False: it returns its input)"), std::string::npos) << r.nodes[0].reason;
    // Only the relu was checked, and its bypass failed on the first run. Without the rule the
    // dropout's accepted bypass adds a run per seed and one on the all-zero input (5 in all).
    EXPECT_EQ(r.checkRuns, 1) << "the relu's check alone";
}

TEST(Redundancy, JsonNamesTasksAndNodes) {
    const auto r = analyze(taskById(testSuite(), "R-relu-after-sigmoid"));
    const auto j = ks::redundancyReportsToJson({r}, {});
    EXPECT_NE(j.find("\"kernelsieve.redundancy\""), std::string::npos);
    EXPECT_NE(j.find("\"aten::relu\""), std::string::npos);
    EXPECT_NE(j.find("\"flop_fraction\""), std::string::npos);
}

} // namespace
