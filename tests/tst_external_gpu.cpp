// SPDX-License-Identifier: MIT
// The external-kernel corpus (tests/data/external) on a GPU: one `kernelsieve-cli bench
// --kernels` run (short timing), then every kernel's verdict against its manifest's `expect`:
// honest kernels valid, library kernels valid with the library note, each cheat caught by the
// guard it was written to defeat, the compile error and the fault reported as such.
#include "ks/core/benchresults.h"
#include "ks/core/engine.h"
#include "ks/core/process.h"
#include "ks/core/results.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace {

bool haveGpu() {
    try {
        return ks::probeDevice("auto").cudaAvailable;
    } catch (const std::exception&) {
        return false;
    }
}

const ks::BenchRun& corpusRun() {
    static const ks::BenchRun run = [] {
        const std::string work = KS_WORK_DIR;
        std::filesystem::create_directories(work);
        const std::string out = work + "/corpus-bench.json";
        const ks::ProcessResult p = ks::runProcess(
            {KS_CLI, "bench", "--kernels", std::string(KS_TEST_DATA) + "/external", "--seeds", "10", "--warmup", "10",
             "--runs", "400", "--baselines", "eager,graph", "--cache-dir", work + "/kernel-cache", "--job-timeout", "300", "--out", out},
            work + "/corpus-bench.log", 1700);
        if (!p.ok()) throw ks::Error("kernelsieve-cli bench failed (" + p.describe() + "): " + ks::fileTail(work + "/corpus-bench.log"));
        return ks::benchFromJson(ks::readFile(out), out);
    }();
    return run;
}

} // namespace

TEST(ExternalGpu, EveryCorpusKernelGetsTheVerdictItsManifestExpects) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const ks::BenchRun& run = corpusRun();
    int checked = 0;
    std::map<std::string, int> byExpect;
    for (const auto& t : run.tasks)
        for (const auto& v : t.variants) {
            ASSERT_TRUE(v.isExternal()) << v.name;
            const std::string expect = v.external.expect;
            const std::string verdict = ks::variantVerdict(v);
            const std::string why = t.taskId + " " + v.name + ": verdict " + verdict + " (" + ks::verdictDetail(v) +
                                    "), expected " + expect;
            ++checked;
            ++byExpect[expect.substr(0, expect.find(':'))];
            if (expect == "valid") {
                EXPECT_EQ(verdict, "valid") << why;
                EXPECT_FALSE(std::isnan(v.speedup)) << why << ": a valid kernel is timed";
            } else if (expect == "library") {
                EXPECT_EQ(verdict, "valid") << why;
                EXPECT_TRUE(v.hasGuard("library")) << why;
            } else if (expect.rfind("cheat:", 0) == 0) {
                EXPECT_EQ(verdict, "cheat") << why;
                const std::string guard = expect.substr(6);
                EXPECT_TRUE(v.hasGuard(guard) || (guard == "impossible-speed" && v.impossible)) << why;
            } else if (expect == "compile-error") {
                EXPECT_EQ(verdict, "compile error") << why;
                EXPECT_FALSE(v.external.compileLog.empty()) << why;
            } else {
                EXPECT_EQ(verdict, expect) << why; // invalid, failed, refused
            }
        }
    EXPECT_GE(checked, 30);
    EXPECT_GE(byExpect["valid"], 16);
    EXPECT_GE(byExpect["cheat"], 10);

    // Valid kernels are timed against the eager baseline of their task (one test: gtest_discover
    // runs each test in its own process, and the corpus run takes minutes).
    for (const auto& t : run.tasks) {
        EXPECT_TRUE(t.baselineError.empty()) << t.taskId << ": " << t.baselineError;
        EXPECT_GT(t.baseline.medianMs, 0) << t.taskId;
        for (const auto& v : t.variants)
            if (ks::variantVerdict(v) == "valid") {
                EXPECT_GT(v.timing.medianMs, 0) << v.name;
                // against the eager (and graph) runs timed interleaved in the kernel's own worker
                for (const std::string kind : {"eager", "graph"}) {
                    const ks::BaselineRun* g = t.baselineOf("graph");
                    if (kind == "graph" && !(g && g->usable())) continue; // capture refused: said in its error
                    const ks::BaselineComparison* c = v.versus(kind);
                    ASSERT_NE(c, nullptr) << v.name << " vs " << kind;
                    EXPECT_NEAR(c->stats.ratio, c->baselineMedianMs / v.timing.medianMs, 1e-9 * c->stats.ratio) << v.name;
                    EXPECT_TRUE(c->stats.measured()) << v.name << " vs " << kind;
                }
                EXPECT_DOUBLE_EQ(v.speedup, v.versus("eager")->stats.ratio) << v.name;
                EXPECT_EQ(v.timing.blocks, 10) << v.name;
            }
    }
}
