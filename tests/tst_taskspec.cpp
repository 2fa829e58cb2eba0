// SPDX-License-Identifier: MIT
#include "ks/core/criteria.h"
#include "ks/core/suite.h"
#include "ks/core/taskspec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

using namespace ks;

namespace {
std::string noFiles(const std::string& p) { throw Error(p + ": no such file"); }

TaskSpec parse(const std::string& text) { return parseTaskSpec(text, "t.json", noFiles); }

std::string errorOf(const std::string& text) {
    try {
        parse(text);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
} // namespace

TEST(TaskSpec, ParsesDimsShapesAndDistributions) {
    const auto t = parse(R"({"kind":"kernelsieve.task","format_version":1,"id":"X-1","name":"n","level":1,
        "source":"def forward(x: Tensor, w: Tensor, b: Tensor) -> Tensor:\n    return x\n",
        "dims":{"full":{"N":4096,"C":64},"small":{"N":32}},
        "inputs":[{"name":"x","shape":["N",3],"init":{"dist":"uniform","low":-1,"high":2}}],
        "params":[{"name":"w","shape":["C",3,3],"init":{"dist":"kaiming_uniform"}},
                  {"name":"b","shape":["C"],"init":{"dist":"kaiming_uniform","fan_in_of":"w"}}],
        "tags":["a","b"]})");
    EXPECT_EQ(t.id, "X-1");
    EXPECT_EQ(t.shapeOf(t.inputs[0], Preset::Full), (std::vector<int64_t>{4096, 3}));
    EXPECT_EQ(t.shapeOf(t.inputs[0], Preset::Small), (std::vector<int64_t>{32, 3}));
    // "C" is not in the small preset, so it comes from full.
    EXPECT_EQ(t.shapeOf(t.params[0], Preset::Small), (std::vector<int64_t>{64, 3, 3}));
    EXPECT_EQ(t.inputs[0].init.kind, Distribution::Kind::Uniform);
    EXPECT_DOUBLE_EQ(t.inputs[0].init.a, -1);
    EXPECT_DOUBLE_EQ(t.inputs[0].init.b, 2);
    EXPECT_DOUBLE_EQ(t.fanInOf(t.params[0], Preset::Full), 9.0);  // PyTorch: shape[1]*prod(k)
    EXPECT_DOUBLE_EQ(t.fanInOf(t.params[1], Preset::Full), 9.0);  // bias takes the weight's
    EXPECT_TRUE(t.hasTag("b"));
}

TEST(TaskSpec, DimsSetForARunChangeOnlyThatPresetsShapes) {
    auto t = parse(R"({"kind":"kernelsieve.task","format_version":1,"id":"X-2","name":"n","level":1,
        "source":"def forward(x: Tensor) -> Tensor:\n    return x\n",
        "dims":{"full":{"batch_size":16,"dim":16384},"small":{"batch_size":4}},
        "inputs":[{"name":"x","shape":["batch_size","dim"],"init":{"dist":"normal"}}]})");
    EXPECT_EQ(t.dimNames(), (std::vector<std::string>{"batch_size", "dim"}));
    // the long softmax rows of newer KernelBench versions; a name the task lacks is left alone
    const auto set = t.overrideDims(Preset::Full, {{"batch_size", 1024}, {"dim", 393216}, {"C", 3}});
    EXPECT_EQ(set, (std::vector<std::string>{"batch_size", "dim"}));
    EXPECT_EQ(t.shapeOf(t.inputs[0], Preset::Full), (std::vector<int64_t>{1024, 393216}));
    // the small preset keeps its own batch and, since it does not name dim, takes full's
    EXPECT_EQ(t.shapeOf(t.inputs[0], Preset::Small), (std::vector<int64_t>{4, 393216}));
    EXPECT_EQ(t.dimNames(), (std::vector<std::string>{"batch_size", "dim"})); // no "C" added
    t.overrideDims(Preset::Small, {{"batch_size", 2}});
    EXPECT_EQ(t.shapeOf(t.inputs[0], Preset::Small), (std::vector<int64_t>{2, 393216}));
    EXPECT_EQ(t.shapeOf(t.inputs[0], Preset::Full), (std::vector<int64_t>{1024, 393216}));
}

TEST(TaskSpec, ErrorsNameTheFileAndTheProblem) {
    EXPECT_NE(errorOf("{"), "");
    EXPECT_NE(errorOf("{").find("t.json: not valid JSON"), std::string::npos);
    EXPECT_NE(errorOf(R"({"kind":"other"})").find("'kind' must be"), std::string::npos);
    EXPECT_NE(errorOf(R"({"kind":"kernelsieve.task","format_version":2,"id":"a"})").find("format_version 2"),
              std::string::npos);
    const std::string base = R"({"kind":"kernelsieve.task","format_version":1,"id":"A-1",)";
    EXPECT_NE(errorOf(base + R"("source":"x","inputs":[{"name":"x","shape":[1]}]})").find("missing required field 'name'"),
              std::string::npos);
    EXPECT_NE(errorOf(base + R"("name":"n","inputs":[{"name":"x","shape":[1]}]})").find("needs 'source' or 'source_file'"),
              std::string::npos);
    const std::string e1 = errorOf(base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":["Q"]}]})");
    EXPECT_NE(e1.find("t.json"), std::string::npos) << e1;
    EXPECT_NE(e1.find("dim 'Q'"), std::string::npos) << e1;
    EXPECT_NE(errorOf(base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":[1],"init":{"dist":"cauchy"}}]})")
                  .find("unknown distribution 'cauchy'"),
              std::string::npos);
    EXPECT_NE(errorOf(base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":[1],"dtype":"float8"}]})")
                  .find("unknown dtype"),
              std::string::npos);
    EXPECT_NE(errorOf(base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":[-1]}]})").find("negative"),
              std::string::npos);
    EXPECT_NE(errorOf(base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":[1],"init":{"dist":"randint","high":0}}]})")
                  .find("low < high"),
              std::string::npos);
    for (const char* lambd : {"0", "-2"})
        EXPECT_NE(errorOf(base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":[1],"init":{"dist":"exponential","lambd":)" +
                          lambd + "}}]}")
                      .find("exponential 'lambd' must be a finite number > 0"),
                  std::string::npos)
            << lambd;
    const std::string x = base + R"("name":"n","source":"s","inputs":[{"name":"x","shape":[1],"discard_before":)";
    EXPECT_NE(errorOf(x + R"({"shape":[2]}}]})").find("must be a list"), std::string::npos);
    EXPECT_NE(errorOf(x + R"([{"shape":[2]}]}]})").find("each entry needs 'shape' (a list of sizes) and 'init'"),
              std::string::npos);
    EXPECT_NE(errorOf(x + R"([{"shape":["N"],"init":{"dist":"normal"}}]}]})").find("'shape' sizes must be integers"),
              std::string::npos);
    EXPECT_NE(errorOf(x + R"([{"shape":[2],"init":{"dist":"constant","value":0}}]}]})")
                  .find("'init' must be normal, uniform, randint or exponential"),
              std::string::npos);
    EXPECT_EQ(errorOf(x + R"([{"shape":[2,3],"init":{"dist":"uniform","low":-1,"high":1,"inplace":true}}]}]})"), "");
    EXPECT_NE(errorOf(base + R"("name":"n","source_file":"missing.py","inputs":[{"name":"x","shape":[1]}]})")
                  .find("cannot read source_file 'missing.py'"),
              std::string::npos);
}

TEST(Suite, GlobSelection) {
    EXPECT_TRUE(globMatch("L1-*", "L1-23"));
    EXPECT_TRUE(globMatch("*softmax*", "23_Softmax"));
    EXPECT_FALSE(globMatch("L1-2", "L1-23"));
    EXPECT_TRUE(globMatch("L?-23", "L1-23"));
    EXPECT_TRUE(globMatch("*", ""));
    Suite s;
    for (const char* id : {"L1-1", "L1-23", "L2-13"}) {
        TaskSpec t;
        t.id = id;
        t.name = std::string("name_") + id;
        s.tasks.push_back(t);
    }
    EXPECT_EQ(selectTasks(s, "").size(), 3u);
    EXPECT_EQ(selectTasks(s, "L1-*").size(), 2u);
    EXPECT_EQ(selectTasks(s, "L2-13,L1-1").size(), 2u);
    EXPECT_EQ(selectTasks(s, "nothing").size(), 0u);
}

TEST(Suite, BadFilesAreReportedAndTheRestLoads) {
    const Suite s = loadSuiteDir(std::string(KS_TEST_DATA) + "/bad");
    // Loadable (they fail later, at run time): good, compile, shape, oom, nan, arity, entry, tuple.
    EXPECT_NE(s.find("B-good"), nullptr);
    EXPECT_NE(s.find("B-compile"), nullptr);
    EXPECT_EQ(s.find("B-noname"), nullptr);
    std::map<std::string, std::string> issues;
    for (const auto& i : s.issues) issues[std::filesystem::path(i.file).filename().string()] = i.message;
    ASSERT_EQ(issues.size(), 5u); // malformed, missing_name, unknown_dim, missing_source, bad_dist
    EXPECT_NE(issues["malformed.json"].find("not valid JSON"), std::string::npos);
    EXPECT_NE(issues["missing_name.json"].find("'name'"), std::string::npos);
    EXPECT_NE(issues["unknown_dim.json"].find("dim 'Q'"), std::string::npos);
    EXPECT_NE(issues["missing_source.json"].find("does_not_exist.py"), std::string::npos);
    EXPECT_NE(issues["bad_dist.json"].find("cauchy"), std::string::npos);
    for (const auto& [file, msg] : issues) EXPECT_NE(msg.find(file), std::string::npos) << msg;
}

TEST(Suite, MissingFolderIsAnError) {
    EXPECT_THROW(loadSuite("/nonexistent/suite"), Error);
}

TEST(Suite, BuiltinProfilesAreEmbedded) {
    const auto names = builtinProfileNames();
    EXPECT_NE(std::find(names.begin(), names.end(), "robust-kbench"), names.end());
    const auto p = builtinProfile("robust-kbench");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->profile, "robust-kbench");
    for (int c = 0; c < StatisticalCriterionCount; ++c) EXPECT_DOUBLE_EQ(p->value(static_cast<Criterion>(c)), 0.01);
    EXPECT_EQ(*p, Thresholds::defaults()); // the defaults are the robust-kbench profile, filters 5-6 included
    const auto strict = builtinProfile("strict");
    ASSERT_TRUE(strict);
    EXPECT_DOUBLE_EQ(strict->value(Criterion::OutputStd), 0.001);
    EXPECT_FALSE(builtinProfile("nope"));
}

// "copy_of" (exporter 1.5: copy.deepcopy'd layers): an earlier parameter of the same shape and
// dtype, resolved to its index; anything else names the tensor and the problem.
TEST(TaskSpec, CopyOfNamesAnEarlierParameterOfTheSameShape) {
    auto task = [](const std::string& params, const std::string& inputExtra = "") {
        return R"({"kind":"kernelsieve.task","format_version":1,"id":"X-3","name":"n","level":1,
            "source":"def forward(x: Tensor, a: Tensor, b: Tensor) -> Tensor:\n    return x\n",
            "dims":{"full":{"D":8}},
            "inputs":[{"name":"x","shape":["D"],"init":{"dist":"normal"})" + inputExtra + R"(}],
            "params":[)" + params + "]}";
    };
    const std::string a = R"({"name":"a","shape":["D",4],"init":{"dist":"kaiming_uniform"}})";
    const auto t = parse(task(a + R"(,{"name":"b","shape":["D",4],"init":{"dist":"kaiming_uniform"},"copy_of":"a"})"));
    EXPECT_EQ(t.params[0].copyOf, -1);
    EXPECT_EQ(t.params[1].copyOf, 0);
    EXPECT_EQ(t.params[1].copyOfName, "a");
    auto err = [&](const std::string& params, const std::string& inputExtra = "") {
        return errorOf(task(params, inputExtra));
    };
    std::string e = err(a + R"(,{"name":"b","shape":["D",4],"init":{"dist":"normal"},"copy_of":"z"})");
    EXPECT_NE(e.find("tensor 'b': 'copy_of' names 'z', which is not a parameter listed before it"), std::string::npos) << e;
    e = err(R"({"name":"b","shape":["D",4],"init":{"dist":"normal"},"copy_of":"a"},)" + a);
    EXPECT_NE(e.find("which is not a parameter listed before it"), std::string::npos) << e;
    e = err(a + R"(,{"name":"b","shape":[4,"D"],"init":{"dist":"normal"},"copy_of":"a"})");
    EXPECT_NE(e.find("tensor 'b': 'copy_of' names 'a', whose shape or dtype differs"), std::string::npos) << e;
    e = err(a + R"(,{"name":"b","shape":["D",4],"dtype":"float64","init":{"dist":"normal"},"copy_of":"a"})");
    EXPECT_NE(e.find("whose shape or dtype differs"), std::string::npos) << e;
    e = err(a + R"(,{"name":"b","shape":["D",4],"init":{"dist":"normal"},"copy_of":"b"})");
    EXPECT_NE(e.find("which is not a parameter listed before it"), std::string::npos) << e;
    e = err(a + R"(,{"name":"b","shape":["D",4],"init":{"dist":"normal"},"copy_of":7})");
    EXPECT_NE(e.find("tensor 'b': 'copy_of' must name an earlier parameter"), std::string::npos) << e;
    e = err(a + R"(,{"name":"b","shape":["D",4],"init":{"dist":"normal"},"copy_of":"a",
                     "draw_before":{"dist":"normal"}})");
    EXPECT_NE(e.find("a 'copy_of' parameter is not drawn"), std::string::npos) << e;
    e = err(a, R"(,"copy_of":"a")");
    EXPECT_NE(e.find("tensor 'x': 'copy_of' is for parameters"), std::string::npos) << e;
}
