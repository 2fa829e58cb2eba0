// SPDX-License-Identifier: MIT
// External kernels on the CPU (no GPU needed): finding kernels and their tasks, call plans,
// manifest errors, the compile cache, and a compiled torch-extension kernel loaded and called
// through KernelSieve's extension shim. Compiling costs about a minute on 2 cores: the two
// compiles here share one cache folder in the build tree, so a re-run takes seconds.
#include "harness_common.h"
#include "ks/core/external.h"
#include "ks/core/process.h"
#include "ks/core/results.h"
#include "ks/core/suite.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

const ks::Suite& builtin() {
    static const ks::Suite s = ks::loadBuiltinSuite();
    return s;
}

// A scratch folder per test, removed at the end.
struct Scratch {
    fs::path dir;
    explicit Scratch(const std::string& name) {
        dir = fs::path(KS_WORK_DIR) / name;
        ks::removeTree(dir.string());
        fs::create_directories(dir);
    }
    void write(const std::string& rel, const std::string& text) const {
        fs::create_directories((dir / rel).parent_path());
        std::ofstream(dir / rel) << text;
    }
};

const char* Relu = "#include <torch/extension.h>\ntorch::Tensor forward(torch::Tensor x) { return x; }\n"
                   "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &forward); }\n";

const ks::ExternalKernel* byName(const std::vector<ks::ExternalKernel>& ks, const std::string& name) {
    for (const auto& k : ks)
        if (k.name == name) return &k;
    return nullptr;
}

} // namespace

TEST(External, Sha256KnownVectors) {
    EXPECT_EQ(ks::sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(ks::sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(ks::sha256Hex(std::string(1000, 'a')).substr(0, 16), "41edece42d63e8d9");
}

TEST(External, DefaultCallPlanIsInputsThenParams) {
    const ks::TaskSpec* t = builtin().find("L2-13");
    ASSERT_NE(t, nullptr);
    const auto plan = ks::defaultCallPlan(*t);
    ASSERT_EQ(plan.size(), t->inputs.size() + t->params.size());
    EXPECT_EQ(plan[0].kind, ks::CallArg::Kind::Input);
    EXPECT_EQ(plan[0].describe(), "input " + t->inputs[0].name);
    EXPECT_EQ(plan.back().kind, ks::CallArg::Kind::Param);
    EXPECT_EQ(plan.back().name, t->params.back().name);
}

TEST(External, ManifestArgsResolveNamesAndLiterals) {
    const ks::TaskSpec* t = builtin().find("L1-36");
    ASSERT_NE(t, nullptr);
    const auto plan = ks::resolveCallPlan(*t, R"(["x", 1e-5, true, {"value": [1, 2]}])");
    ASSERT_EQ(plan.size(), 4u);
    EXPECT_EQ(plan[0].kind, ks::CallArg::Kind::Input);
    EXPECT_EQ(plan[1].kind, ks::CallArg::Kind::Value);
    EXPECT_EQ(plan[2].valueJson, "true");
    EXPECT_EQ(plan[3].valueJson, "[1,2]");
    // Round trip through the worker's argument.
    const auto back = ks::callPlanFromJson(ks::callPlanToJson(plan));
    ASSERT_EQ(back.size(), 4u);
    EXPECT_EQ(back[0].name, "x");
    EXPECT_EQ(back[1].describe(), plan[1].describe());
    try {
        ks::resolveCallPlan(*t, R"(["y"])");
        FAIL() << "an unknown name must be refused";
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find("no input or parameter named 'y'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("x"), std::string::npos) << "the message lists what the task has";
    }
    EXPECT_THROW(ks::resolveCallPlan(*t, R"([{"text": "x"}])"), ks::Error);
    EXPECT_THROW(ks::resolveCallPlan(*t, R"("x")"), ks::Error);
}

TEST(External, ManifestEntriesThatCannotBePlacedAreResultsNotAborts) {
    Scratch s("manifest");
    s.write("relu.cu", Relu);
    s.write("kernels.json", R"({"kind": "kernelsieve.kernels", "format_version": 1, "kernels": [
        {"file": "relu.cu", "task": "L1-19"},
        {"file": "relu.cu", "task": "19_ReLU", "name": "relu"},
        {"file": "../outside.cu", "task": "L1-19", "name": "escapes"},
        {"file": "missing.cu", "task": "L1-19", "name": "missing"},
        {"file": "relu.cu", "task": "L9-999", "name": "no_task"},
        {"file": "relu.cu", "task": "L1-19", "name": "bad_args", "args": ["nope"]},
        {"file": "relu.cu", "task": "L1-36", "name": "rms", "args": ["x", 1e-5], "expect": "valid"},
        {"task": "L1-19"}
    ]})");
    const auto ks = ks::discoverKernels(s.dir.string(), builtin(), {});
    ASSERT_EQ(ks.size(), 8u);
    EXPECT_TRUE(ks[0].error.empty()) << ks[0].error;
    EXPECT_EQ(ks[0].taskId, "L1-19");
    EXPECT_EQ(ks[0].format, "torch-extension");
    ASSERT_EQ(ks[0].sources.size(), 1u);
    EXPECT_NE(ks[1].error.find("a second kernel named 'relu'"), std::string::npos) << ks[1].error;
    EXPECT_NE(byName(ks, "escapes")->error.find("leaves the manifest's folder"), std::string::npos);
    EXPECT_NE(byName(ks, "missing")->error.find("not a regular file"), std::string::npos);
    EXPECT_NE(byName(ks, "no_task")->error.find("no task 'L9-999'"), std::string::npos);
    EXPECT_NE(byName(ks, "bad_args")->error.find("no input or parameter named 'nope'"), std::string::npos);
    const auto* rms = byName(ks, "rms");
    ASSERT_TRUE(rms->error.empty()) << rms->error;
    EXPECT_EQ(rms->args.size(), 2u);
    EXPECT_EQ(rms->expect, "valid");
    EXPECT_NE(ks[7].error.find("needs \"file\" and \"task\""), std::string::npos) << ks[7].error;
}

TEST(External, BadManifestsAndSingleFilesNeedClearErrors) {
    Scratch s("badmanifest");
    s.write("kernels.json", R"({"kind": "something.else"})");
    try {
        ks::discoverKernels(s.dir.string(), builtin(), {});
        FAIL();
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a kernel manifest"), std::string::npos) << e.what();
    }
    s.write("kernels.json", "{ not json");
    EXPECT_THROW(ks::discoverKernels(s.dir.string(), builtin(), {}), ks::Error);
    EXPECT_THROW(ks::discoverKernels((s.dir / "nothing-here").string(), builtin(), {}), ks::Error);
    s.write("one.cu", Relu);
    try {
        ks::discoverKernels((s.dir / "one.cu").string(), builtin(), {});
        FAIL() << "a single file needs --tasks naming one task";
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find("--tasks must name exactly one task"), std::string::npos) << e.what();
    }
    ks::DiscoverOptions o;
    o.tasksPattern = "L1-19";
    const auto one = ks::discoverKernels((s.dir / "one.cu").string(), builtin(), o);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].taskId, "L1-19");
    EXPECT_EQ(one[0].name, "one");
}

TEST(External, FoldersNamedAfterTasksWithoutAManifest) {
    Scratch s("layout");
    s.write("L1-19/a.cu", Relu);
    s.write("L1-19/b.cu", Relu);
    s.write("19_ReLU/c.cu", Relu); // by name
    s.write("not_a_task/d.cu", Relu);
    s.write("stray.cu", Relu);
    std::vector<std::string> warnings;
    const auto ks = ks::discoverKernels(s.dir.string(), builtin(), {}, &warnings);
    ASSERT_EQ(ks.size(), 3u);
    for (const auto& k : ks) {
        EXPECT_EQ(k.taskId, "L1-19");
        EXPECT_TRUE(k.error.empty()) << k.error;
    }
    ASSERT_EQ(warnings.size(), 2u);
    std::string all = warnings[0] + warnings[1];
    EXPECT_NE(all.find("not_a_task/"), std::string::npos);
    EXPECT_NE(all.find("stray.cu"), std::string::npos);
}

// nvcc is on the CI box (the CUDA toolkit without a GPU), so the compile path runs there.
class ExternalCompile : public ::testing::Test {
  protected:
    static ks::CompileOptions options() {
        ks::CompileOptions o;
        o.cacheDir = std::string(KS_WORK_DIR) + "/kernel-cache";
        o.jobs = 2;
        return o;
    }
};

TEST_F(ExternalCompile, ACompileErrorIsAResultWithTheCompilersMessageAndIsCached) {
    ks::ExternalKernel k;
    k.name = "broken";
    k.file = std::string(KS_TEST_DATA) + "/external_cpu/broken.cu";
    k.format = "torch-extension";
    k.sources = {{"broken.cu", ks::readFile(k.file)}};
    const auto r = ks::compileKernels({k}, options());
    ASSERT_EQ(r.size(), 1u);
    EXPECT_FALSE(r[0].ok);
    EXPECT_NE(r[0].log.find("undeclared_name"), std::string::npos) << r[0].log;
    const auto again = ks::compileKernels({k}, options());
    EXPECT_TRUE(again[0].cacheHit);
    EXPECT_FALSE(again[0].ok);
    EXPECT_EQ(again[0].key, r[0].key);
    // A refused kernel is not compiled at all.
    k.error = "refused before compiling";
    const auto refused = ks::compileKernels({k}, options());
    EXPECT_FALSE(refused[0].ok);
    EXPECT_TRUE(refused[0].key.empty());
}

TEST_F(ExternalCompile, AKernelCompilesLoadsAndIsCalledThroughTheShim) {
    ks::DiscoverOptions d;
    d.tasksPattern = "L1-19";
    const auto found = ks::discoverKernels(std::string(KS_TEST_DATA) + "/external_cpu/scale.cu", builtin(), d);
    ASSERT_EQ(found.size(), 1u);
    const auto r = ks::compileKernels(found, options());
    ASSERT_TRUE(r[0].ok) << r[0].log;
    const auto hit = ks::compileKernels(found, options());
    EXPECT_TRUE(hit[0].cacheHit);
    EXPECT_EQ(hit[0].soPath, r[0].soPath);

    const at::Tensor x = at::arange(4, at::kFloat);
    const ks::ExternalFunction scale = ks::loadExternalFunction(r[0].soPath, "scale");
    EXPECT_EQ(scale.signature(), "Tensor(Tensor, double, int64_t, bool)");
    // All defaults (s = 2, k = 1, negate = false), then each given; an int where a double goes.
    EXPECT_TRUE(at::equal(ks::callExternalFunction(scale, {x}), x * 2 + 1));
    EXPECT_TRUE(at::equal(ks::callExternalFunction(scale, {x, 3.0, int64_t{0}, true}), -(x * 3)));
    EXPECT_TRUE(at::equal(ks::callExternalFunction(scale, {x, int64_t{1}}), x + 1));
    try {
        ks::callExternalFunction(scale, {at::scalar_tensor(1.0)});
        FAIL() << "the kernel's TORCH_CHECK must come back as an error";
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find("at least one dimension"), std::string::npos) << e.what();
    }
    const ks::ExternalFunction addOpt = ks::loadExternalFunction(r[0].soPath, "add_opt");
    EXPECT_TRUE(at::equal(ks::callExternalFunction(addOpt, {x, c10::IValue()}), x));
    EXPECT_TRUE(at::equal(ks::callExternalFunction(addOpt, {x, x}), x * 2));
    const ks::ExternalFunction split = ks::loadExternalFunction(r[0].soPath, "split2");
    try {
        ks::callExternalFunction(split, {x});
        FAIL();
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not return one torch::Tensor"), std::string::npos) << e.what();
    }
    try {
        ks::loadExternalFunction(r[0].soPath, "forward");
        FAIL();
    } catch (const ks::Error& e) {
        EXPECT_NE(std::string(e.what()).find("binds no function 'forward'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("scale Tensor(Tensor, double, int64_t, bool)"), std::string::npos) << e.what();
    }
}
