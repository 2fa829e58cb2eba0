// SPDX-License-Identifier: MIT
// The compiled PyTorch baseline on the CPU (issue 12): a built-in task compiled ahead of time by
// aoti_compile.py (sandboxed where the machine has a sandbox), found in the cache the second time,
// loaded with LibTorch's AOTInductor runner and checked against the TorchScript task; a task
// that cannot be compiled is a per-task failure with the reason, and a missing Python is named.
#include "ks/core/aotimodel.h"
#include "ks/core/compiledbaseline.h"
#include "ks/core/guards.h"
#include "ks/core/sandbox.h"
#include "ks/core/suite.h"
#include "ks/core/torchtask.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace ks;
namespace fs = std::filesystem;

namespace {

BaselineCompileOptions cpuOptions() {
    setSandboxMode(SandboxMode::Auto);
    setenv("KS_SANDBOX_HELPER", KS_SANDBOX_BIN, 1);
    BaselineCompileOptions o;
    o.device = "cpu";
    o.preset = Preset::Small;
    o.python = KS_TEST_PYTHON;
    o.cacheDir = std::string(KS_WORK_DIR) + "/cache";
    o.jobs = 1;
    return o;
}

TaskSpec builtin(const std::string& id) {
    const Suite s = loadBuiltinSuite();
    const TaskSpec* t = s.find(id);
    if (!t) throw Error("no task " + id);
    return *t;
}

} // namespace

TEST(CompiledBaseline, CompilesCachesAndRunsLikeTheTask) {
    const BaselineCompileOptions o = cpuOptions();
    const TaskSpec task = builtin("L1-23");
    const auto first = compileBaselines({task}, o);
    ASSERT_EQ(first.size(), 1u);
    ASSERT_TRUE(first[0].ok) << first[0].error << "\n" << first[0].log;
    EXPECT_EQ(first[0].taskId, "L1-23");
    EXPECT_EQ(first[0].key.size(), 64u);
    EXPECT_TRUE(fs::is_directory(first[0].packagePath)) << first[0].packagePath;
    EXPECT_TRUE(fs::exists(fs::path(first[0].packagePath).parent_path() / "model.pt2"));
    // the second time it comes from the cache, under the same key
    const auto again = compileBaselines({task}, o);
    ASSERT_TRUE(again[0].ok) << again[0].error;
    EXPECT_TRUE(again[0].cacheHit);
    EXPECT_EQ(again[0].key, first[0].key);
    EXPECT_EQ(again[0].packagePath, first[0].packagePath);

    // The compiled model takes the task's own tensors and computes what the task computes, on
    // fresh draws (the package is specialised to shapes, not values).
    const CompiledModel model(first[0].packagePath);
    const CompiledTask ct = compileTask(task);
    for (uint64_t seed : {1u, 2u}) {
        seedAll(seed);
        const auto inputs = drawInputs(task, Preset::Small, at::Device(at::kCPU));
        const auto params = drawParams(task, Preset::Small, at::Device(at::kCPU));
        std::vector<at::Tensor> all = inputs;
        all.insert(all.end(), params.begin(), params.end());
        const at::Tensor out = model.run(all);
        const at::Tensor ref = runForward(task, ct, inputs, params);
        ASSERT_EQ(out.sizes(), ref.sizes());
        const auto c = guards::compareToReference(out, ref.to(at::kDouble), 1e-5, 1e-4);
        EXPECT_TRUE(c.pass) << "seed " << seed << ": " << c.describe();
    }
    // the wrong tensors are an error naming the compiled baseline, not a crash
    EXPECT_THROW(model.run({at::zeros({3}, at::kFloat)}), Error);
}

TEST(CompiledBaseline, KeyFollowsShapesAndDevice) {
    BaselineCompileOptions o = cpuOptions();
    o.cacheDir = std::string(KS_WORK_DIR) + "/keys"; // nothing compiled here: a missing script stops first
    const TaskSpec task = builtin("L1-23");
    const std::string small = baselineCompileSpec(task, o);
    o.dims = {{"dim", 4096}};
    const std::string wide = baselineCompileSpec(task, o);
    EXPECT_NE(small, wide);
    EXPECT_NE(wide.find("4096"), std::string::npos) << wide;
    EXPECT_NE(small.find("\"source\""), std::string::npos);
    EXPECT_NE(small.find("torch.softmax"), std::string::npos) << small;
}

TEST(CompiledBaseline, AFailingTaskIsItsOwnResult) {
    const BaselineCompileOptions o = cpuOptions();
    const fs::path dir = fs::path(KS_WORK_DIR) / "broken_suite";
    fs::create_directories(dir);
    std::ofstream(dir / "broken.json") << R"({"kind":"kernelsieve.task","format_version":1,"id":"T-broken","level":0,
        "number":0,"name":"0_Broken","category":"synthetic","entry":"forward",
        "source":"def forward(x: Tensor) -> Tensor:\n    return torch.no_such_op(x)\n",
        "dims":{"full":{"N":8},"small":{"N":8}},"inputs":[{"name":"x","shape":["N"]}],"params":[]})";
    const Suite s = loadSuite(dir.string());
    ASSERT_EQ(s.tasks.size(), 1u) << (s.issues.empty() ? "" : s.issues[0].message);
    const auto r = compileBaselines(s.tasks, o);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_FALSE(r[0].ok);
    EXPECT_NE(r[0].error.find("no_such_op"), std::string::npos) << r[0].error;
    EXPECT_EQ(r[0].error.rfind("load failed", 0), 0u) << r[0].error; // the stage comes first
}

TEST(CompiledBaseline, AMissingPythonIsNamed) {
    BaselineCompileOptions o = cpuOptions();
    o.python = "/nonexistent/python3";
    const auto r = compileBaselines({builtin("L1-23"), builtin("L1-12")}, o);
    ASSERT_EQ(r.size(), 2u);
    for (const auto& x : r) {
        EXPECT_FALSE(x.ok);
        EXPECT_NE(x.error.find("/nonexistent/python3"), std::string::npos) << x.error;
        EXPECT_NE(x.error.find("--baselines eager"), std::string::npos) << x.error;
    }
}

TEST(CompiledBaseline, BaselineListsAreChecked) {
    EXPECT_EQ(parseBaselines("compiled,eager,graph"), (std::vector<std::string>{"eager", "compiled", "graph"}));
    EXPECT_EQ(parseBaselines("eager"), std::vector<std::string>{"eager"});
    EXPECT_THROW(parseBaselines("compiled"), Error); // every speedup is also against eager
    EXPECT_THROW(parseBaselines("eager,inductor"), Error);
}
