// SPDX-License-Identifier: MIT
// On the GPU: every registered variant validated on 100 seeds and every edge case, the shortcut
// valid only on the broken task, and every deliberately cheating variant caught. Each variant
// runs in a worker process (this executable re-run with "worker"), as in kernelsieve-cli.
#include "cheats/cheating_kernels.h"
#include "ks/core/engine.h"
#include "ks/core/harness.h"
#include "ks/core/sandbox.h"
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

// Issue 12: the compiled (AOTInductor) and CUDA-graph baselines beside eager, timed interleaved
// in every worker: each validated, each variant compared with each, with intervals and clocks.
TEST(HarnessGpu, CompiledAndGraphBaselinesBesideEveryVariant) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    setSandboxMode(SandboxMode::Auto);
    BaselineCompileOptions co;
    co.device = "cuda";
    co.deviceName = probeDevice("cuda").name;
    co.preset = Preset::Small;
    co.python = KS_TEST_PYTHON;
    co.cacheDir = KS_BASELINE_CACHE;
    co.jobs = 2;
    const auto ts = tasks("L1-12,L1-23");
    std::map<std::string, BaselineCompileResult> compiled;
    for (const auto& r : compileBaselines(ts, co)) {
        EXPECT_TRUE(r.ok) << r.taskId << ": " << r.error << "\n" << r.log;
        compiled[r.taskId] = r;
    }
    HarnessOptions o;
    o.preset = Preset::Small;
    o.seeds = 5;
    o.edgeCases = false;
    o.warmup = 10;
    o.runs = 200;
    o.blocks = 4;
    o.baselines = {"eager", "compiled", "graph"};
    const BenchRun run = runBench(ts, "builtin", o, self(), {}, nullptr, {}, true, compiled);
    ASSERT_EQ(run.tasks.size(), 2u);
    EXPECT_EQ(run.baselines, o.baselines);
    const bool nvml = run.clockSource == "nvml";
    std::printf("clock records: %s\n", run.clockSource.c_str());
    for (const auto& t : run.tasks) {
        EXPECT_TRUE(t.baselineError.empty()) << t.taskId << ": " << t.baselineError;
        EXPECT_EQ(t.baseline.blocks, 4) << t.taskId;
        EXPECT_EQ(t.baseline.runs, 200) << t.taskId;
        for (const char* kind : {"compiled", "graph"}) {
            const BaselineRun* b = t.baselineOf(kind);
            ASSERT_NE(b, nullptr) << t.taskId << " " << kind;
            ASSERT_TRUE(b->usable()) << t.taskId << " " << kind << ": " << b->error;
            EXPECT_TRUE(b->validation.passed) << t.taskId << " " << kind << ": "
                                              << (b->validation.failures.empty() ? "" : b->validation.failures.front());
            EXPECT_TRUE(b->vsEager.measured()) << t.taskId << " " << kind;
            EXPECT_GT(b->timing.medianMs, 0) << t.taskId << " " << kind;
            if (nvml) EXPECT_EQ(b->timing.clockBlocks.size(), 4u) << t.taskId << " " << kind;
            std::printf("%s %s: %.4f ms, %.2fx eager [%.2f, %.2f]\n", t.taskId.c_str(), kind, b->timing.medianMs,
                        b->vsEager.ratio, b->vsEager.lo, b->vsEager.hi);
        }
        EXPECT_EQ(t.baselineOf("compiled")->validation.seeds, 5);
        for (const auto& v : t.variants) {
            if (!v.validation.passed) continue; // the shortcut on a repaired task, say
            EXPECT_EQ(v.timing.blocks, 4) << v.name;
            EXPECT_TRUE(v.speedupStats.measured()) << v.name;
            EXPECT_LE(v.speedupStats.lo, v.speedup) << v.name;
            EXPECT_GE(v.speedupStats.hi, v.speedup) << v.name;
            for (const char* kind : {"eager", "compiled", "graph"}) {
                const BaselineComparison* c = v.versus(kind);
                ASSERT_NE(c, nullptr) << v.name << " vs " << kind;
                EXPECT_TRUE(c->stats.measured()) << v.name << " vs " << kind;
                EXPECT_NEAR(c->stats.ratio, c->baselineMedianMs / v.timing.medianMs, 1e-9) << v.name;
            }
        }
    }
    const BenchRun back = benchFromJson(benchToJson(run), "mem");
    EXPECT_EQ(benchToJson(back), benchToJson(run));
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
