// SPDX-License-Identifier: MIT
// The built-in suite: loads without issues, covers what the issue asks, runs at `small` on the
// CPU, and the seed's Table 1 cases come out as the seed reports them.
#include "ks/core/engine.h"
#include "ks/core/suite.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace ks;

TEST(BuiltinSuite, LoadsCleanlyAndCoversEveryCategory) {
    const Suite s = loadBuiltinSuite();
    for (const auto& i : s.issues) ADD_FAILURE() << i.file << ": " << i.message;
    int l1 = 0, l2 = 0;
    std::set<std::string> l1cats;
    for (const auto& t : s.tasks) {
        if (t.level == 1) {
            ++l1;
            l1cats.insert(t.category);
        }
        if (t.level == 2) ++l2;
    }
    EXPECT_GE(s.tasks.size(), 60u);
    EXPECT_GE(l1, 40);
    EXPECT_GE(l2, 20);
    for (const char* c : {"matmul", "activation", "normalization", "pooling", "reduction", "convolution", "loss", "scan"})
        EXPECT_TRUE(l1cats.count(c)) << "no level-1 task in category " << c;
    for (const char* id : {"L1-12", "L1-23", "L1-36", "L2-13", "L2-13r"}) EXPECT_NE(s.find(id), nullptr) << id;
    int dead = 0;
    for (const auto& t : s.tasks) dead += t.hasTag("dead-op") || t.hasTag("no-effect-op");
    EXPECT_GE(dead, 3);
}

TEST(BuiltinSuite, WholeSuiteRunsAtSmallOnCpuAndTableOneHolds) {
    EngineOptions o;
    o.device = "cpu";
    o.preset = Preset::Small;
    o.seeds = 5;
    // The statistics alone: cli.end_to_end runs the whole suite with filters 5-6 as well.
    o.inefficiency = o.redundancy = false;
    Engine engine(o);
    const Suite s = loadBuiltinSuite();
    const RunResults rr = engine.runAll(s.tasks, s.name, Thresholds::defaults());
    ASSERT_EQ(rr.tasks.size(), s.tasks.size());
    std::map<std::string, const TaskResult*> by;
    for (const auto& t : rr.tasks) {
        by[t.id] = &t;
        EXPECT_EQ(t.status, TaskStatus::Ok) << t.id << ": " << t.error;
        EXPECT_LT(t.wallSeconds, 30.0) << t.id << " is too slow for the small preset";
    }
    const Thresholds th = Thresholds::defaults();
    auto flags = [&](const std::string& id) {
        const TaskResult& r = *by.at(id);
        return std::vector<bool>{r.flagged(Criterion::OutputRange, th), r.flagged(Criterion::OutputStd, th),
                                 r.flagged(Criterion::OutputAxes, th), r.flagged(Criterion::InputImpact, th)};
    };
    using V = std::vector<bool>;
    EXPECT_EQ(flags("L1-23"), (V{true, true, true, true}));     // softmax 16x16384
    EXPECT_EQ(flags("L1-12"), (V{false, false, false, false})); // diagonal matmul
    EXPECT_EQ(flags("L1-36"), (V{false, false, false, false})); // RMSNorm
    EXPECT_EQ(flags("L2-13"), (V{false, true, true, true}));    // broken: constant output
    const V repaired = flags("L2-13r");
    EXPECT_FALSE(repaired[1]);
    EXPECT_FALSE(repaired[2]);
    EXPECT_FALSE(repaired[3]);
    // The broken task's constant is tanh(1) * 2.
    EXPECT_NEAR(by.at("L2-13")->range.max, std::tanh(1.0) * 2.0, 1e-6);
}
