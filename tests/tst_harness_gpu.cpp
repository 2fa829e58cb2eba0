// SPDX-License-Identifier: MIT
// On the GPU: every registered variant validated on 100 seeds and every edge case, the shortcut
// valid only on the broken task, and every deliberately cheating variant caught. Each variant
// runs in a worker process (this executable re-run with "worker"), as in kernelsieve-cli.
#include "cheats/cheating_kernels.h"
#include "ks/core/engine.h"
#include "ks/core/harness.h"
#include "ks/core/suite.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

using namespace ks;

namespace {

bool haveGpu() { return probeDevice("auto").cudaAvailable; }

WorkerCommand self() { return {std::filesystem::read_symlink("/proc/self/exe").string(), {"worker"}}; }

std::vector<TaskSpec> tasks(const std::string& pattern) { return selectTasks(loadBuiltinSuite(), pattern); }

const VariantResult* find(const BenchRun& run, const std::string& task, const std::string& variant) {
    for (const auto& t : run.tasks)
        if (t.taskId == task)
            for (const auto& v : t.variants)
                if (v.name == variant) return &v;
    return nullptr;
}

std::string report(const VariantResult& v) {
    std::string s = v.name + ": error='" + v.error + "'";
    for (const auto& f : v.validation.failures) s += "\n  " + f;
    return s;
}

} // namespace

TEST(HarnessGpu, EveryVariantValidOnHundredSeedsAndEdgeCases) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    HarnessOptions o;
    o.seeds = 100;
    o.time = false;
    o.variantPattern = "*_kernel*";
    const BenchRun run = runBench(tasks("L1-12,L1-23,L1-36,L2-13,L2-13r"), "builtin", o, self());
    ASSERT_EQ(run.tasks.size(), 5u);
    for (const auto& t : run.tasks) {
        EXPECT_GE(t.variants.size(), 2u) << t.taskId;
        for (const auto& v : t.variants) {
            if (v.shortcut) continue; // below
            EXPECT_TRUE(v.validation.passed) << t.taskId << " " << report(v);
            EXPECT_EQ(v.validation.seeds, 100) << t.taskId << " " << v.name;
            EXPECT_GE(v.validation.checks.size(), 5u) << t.taskId << " " << v.name;
        }
    }
    // The shortcut is the seed's 124x "win": right on the broken task only.
    const auto* broken = find(run, "L2-13", "convtranspose3d_mean_add_softmax_tanh_scale_kernel3");
    const auto* repaired = find(run, "L2-13r", "convtranspose3d_mean_add_softmax_tanh_scale_kernel3");
    ASSERT_TRUE(broken && repaired);
    EXPECT_TRUE(broken->shortcut);
    // On the broken task it is right for every random seed and every finite edge case; it only
    // fails to propagate a NaN input (it never reads the input), which the harness must report.
    EXPECT_FALSE(broken->validation.passed);
    ASSERT_FALSE(broken->validation.failures.empty());
    for (const auto& f : broken->validation.failures)
        EXPECT_NE(f.find("NaN input"), std::string::npos) << "unexpected failure on the broken task: " << f;
    EXPECT_FALSE(repaired->validation.passed);
    bool seedFailure = false;
    for (const auto& f : repaired->validation.failures) seedFailure = seedFailure || f.rfind("seed", 0) == 0;
    EXPECT_TRUE(seedFailure) << "the shortcut must fail random seeds on the repaired task";
}

TEST(HarnessGpu, EveryCheatingVariantIsCaught) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    HarnessOptions o;
    o.seeds = 5;
    o.edgeCases = false;
    o.warmup = 5;
    o.runs = 50;
    o.variantPattern = "cheat_*,diag_matmul_kernel3";
    const BenchRun run = runBench(tasks("L1-12"), "builtin", o, self());
    ASSERT_EQ(run.tasks.size(), 1u);
    std::map<std::string, const VariantResult*> by;
    for (const auto& v : run.tasks[0].variants) by[v.name] = &v;
    ASSERT_EQ(by.size(), 6u);
    auto failuresContain = [](const VariantResult& v, const std::string& needle) {
        for (const auto& f : v.validation.failures)
            if (f.find(needle) != std::string::npos) return true;
        return v.error.find(needle) != std::string::npos;
    };
    EXPECT_TRUE(by["diag_matmul_kernel3"]->validation.passed) << report(*by["diag_matmul_kernel3"]);
    const auto& nothing = *by["cheat_writes_nothing"];
    EXPECT_FALSE(nothing.validation.passed);
    EXPECT_TRUE(failuresContain(nothing, "nan vs")) << report(nothing);
    const auto& modifies = *by["cheat_modifies_input"];
    EXPECT_FALSE(modifies.validation.passed);
    EXPECT_TRUE(failuresContain(modifies, "modified input 1 (B)")) << report(modifies);
    const auto& cached = *by["cheat_cached_result"];
    EXPECT_FALSE(cached.validation.passed);
    EXPECT_TRUE(failuresContain(cached, "elements off")) << report(cached);
    const auto& side = *by["cheat_side_stream"];
    EXPECT_FALSE(side.validation.passed) << report(side);
    EXPECT_TRUE(failuresContain(side, "another stream")) << report(side);
    EXPECT_TRUE(side.impossible) << "an idle timed stream implies impossible bandwidth";
    const auto& wild = *by["cheat_illegal_address"];
    EXPECT_FALSE(wild.validation.passed);
    EXPECT_NE(wild.error.find("illegal"), std::string::npos) << report(wild);
    // The run went on after the crash: the variants registered after it were evaluated too.
    EXPECT_TRUE(run.tasks[0].variants.back().name != "cheat_illegal_address" || by.size() == 6u);
    EXPECT_GT(run.copyBandwidthGBs, 1000.0);
}

int main(int argc, char** argv) {
    registerExtraVariants(cheats::variants());
    if (argc > 1 && std::string(argv[1]) == "worker") {
        try {
            return runWorkerJob(workerJobFromArgs(std::vector<std::string>(argv + 2, argv + argc)));
        } catch (const Error& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return 2;
        }
    }
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
