// SPDX-License-Identifier: MIT
// The shared operands on CUDA: drawn ahead on host threads into page-locked memory and copied
// asynchronously, they must be exactly the sequential CPU-generator draws, and the engine's results
// must not depend on the drawing threads or on the next task's drawing (label gpu; skips without a
// device).
#include "ks/core/engine.h"
#include "ks/core/operands.h"
#include "ks/core/streamstats.h"
#include "ks/core/suite.h"
#include "ks/core/torchtask.h"
#include "enginetestutil.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/cuda/CUDAAllocatorConfig.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <torch/cuda.h>

using namespace ks;
using ks::test::expectSameStatistics;

namespace {

bool haveGpu() { return torch::cuda::is_available(); }

size_t deviceTotalBytes() {
    size_t freeB = 0, totalB = 0;
    return cudaMemGetInfo(&freeB, &totalB) == cudaSuccess ? totalB : 0;
}

// The builtin tasks `ids`, run by one engine with `o` (device cuda).
RunResults runBuiltin(const std::vector<const char*>& ids, EngineOptions o) {
    const Suite suite = loadSuite("builtin");
    std::vector<TaskSpec> tasks;
    for (const char* id : ids) {
        const TaskSpec* spec = suite.find(id);
        if (!spec) throw std::runtime_error(std::string("no built-in task ") + id);
        tasks.push_back(*spec);
    }
    o.device = "cuda";
    Engine e(o);
    return e.runAll(tasks, "builtin", Thresholds::defaults());
}

} // namespace

TEST(OperandsGpu, PinnedAsyncUploadsEqualTheSequentialCpuDraws) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const Suite suite = loadSuite("builtin");
    const at::Device cpu(at::kCPU), cuda(at::kCUDA, 0);
    int checked = 0;
    // Default: every tensor here (small shapes) drawn page-locked; 0: all pageable, the larger
    // ones uploaded through the staging buffers (KS_PINNED_MAX_GIB).
    for (const int64_t maxPinned : {int64_t{-1}, int64_t{0}}) {
        for (const auto& spec : suite.tasks) {
            if (spec.level != 1 && spec.level != 2) continue;
            SCOPED_TRACE(spec.id + (maxPinned == 0 ? " (nothing page-locked)" : ""));
            OperandSource::Options o;
            o.preset = Preset::Small;
            o.device = cuda;
            o.threads = 4;
            o.maxPinnedBytes = maxPinned;
            OperandSource src(spec, o);
            src.prefetchSeeds(0, 3);
            for (int s = 0; s < 3; ++s) {
                const auto got = src.seed(s);
                seedAll(static_cast<uint64_t>(s));
                const auto inputs = drawInputs(spec, Preset::Small, cpu);
                const auto params = drawParams(spec, Preset::Small, cpu);
                ASSERT_EQ(got.inputs.size(), inputs.size());
                ASSERT_EQ(got.params.size(), params.size());
                for (size_t i = 0; i < inputs.size(); ++i) {
                    EXPECT_TRUE(got.inputs[i].is_cuda());
                    EXPECT_TRUE(at::equal(got.inputs[i].cpu(), inputs[i])) << "input " << i << " seed " << s;
                }
                for (size_t i = 0; i < params.size(); ++i)
                    EXPECT_TRUE(at::equal(got.params[i].cpu(), params[i])) << "param " << i << " seed " << s;
            }
            ++checked;
        }
    }
    EXPECT_GT(checked, 200);
}

// Full shapes on the GPU, five tasks in one run (so each task's seeds are drawn while the one
// before runs, and filter 5 pauses that drawing): the same statistics, filter-6 findings and
// filter-5 verdicts with one drawing thread and with six.
TEST(OperandsGpu, EngineResultsDoNotDependOnDrawingAhead) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const std::vector<const char*> ids = {"L1-12", "L1-23", "L1-36", "L2-66", "L2-13"};
    auto run = [&](int threads) {
        EngineOptions o;
        o.seeds = 5;
        o.drawThreads = threads;
        return runBuiltin(ids, o);
    };
    const RunResults a = run(1), b = run(6);
    const Thresholds th = Thresholds::defaults();
    expectSameStatistics(a, b, ids.size());
    int64_t peakSeen = 0;
    for (size_t i = 0; i < a.tasks.size() && i < b.tasks.size(); ++i) {
        SCOPED_TRACE(ids[i]);
        const TaskResult &x = a.tasks[i], &y = b.tasks[i];
        for (const Criterion c : {Criterion::OutputRange, Criterion::OutputStd, Criterion::OutputAxes,
                                  Criterion::InputImpact, Criterion::BaselineInefficiency,
                                  Criterion::RedundantComputation})
            EXPECT_EQ(x.flagged(c, th), y.flagged(c, th));
        ASSERT_TRUE(x.redundancy && y.redundancy && x.inefficiency && y.inefficiency);
        EXPECT_EQ(x.redundancy->nodes.size(), y.redundancy->nodes.size());
        EXPECT_EQ(x.inefficiency->bytes, y.inefficiency->bytes);
        EXPECT_EQ(x.inefficiency->flops, y.inefficiency->flops);
        EXPECT_GT(y.operandReuses, 0); // seeds 0-2 served the statistics and both analyses
        EXPECT_EQ(y.operandRedraws, 0);
        // The operands were drawn into page-locked blocks, which the pinned allocator holds after
        // the task; beyond the tasks drawn ahead, at most max(1 GiB, twice the most operands a
        // task so far held) (the trim; power-of-two blocks hold up to twice what is in them).
        // They are resident.
        peakSeen = std::max(peakSeen, y.peakOperandHostBytes);
        EXPECT_GT(y.pinnedHeldBytes, 0);
        EXPECT_LE(y.pinnedHeldBytes, std::max<int64_t>(int64_t{1} << 30, 2 * peakSeen) + 2 * y.pinnedInUseBytes);
        EXPECT_GE(y.rssAnonBytes, y.pinnedHeldBytes) << "registered page-locked blocks are resident";
        EXPECT_GT(y.rssFileBytes, int64_t{1} << 20);
        // The device memory the caching allocator still holds: at least the kept device copies.
        EXPECT_GT(y.deviceReservedBytes, 0);
    }
    // The seed's Table 1: L1-23 by the four statistics, L1-12 by its rewrite, L2-13 by std.
    EXPECT_TRUE(b.tasks[1].flagged(Criterion::OutputRange, th));
    EXPECT_TRUE(b.tasks[0].flagged(Criterion::BaselineInefficiency, th));
    EXPECT_TRUE(b.tasks[4].flagged(Criterion::OutputStd, th));
}

// Kept device copies (EngineOptions::deviceKeepBytes, on by default): the analyses' seeds and
// the input-impact pass's inputs come from copies on the device instead of new uploads, with the
// same statistics to the bit and the same filter-6 findings and filter-5 measurements of size.
TEST(OperandsGpu, EngineResultsDoNotDependOnKeptDeviceCopies) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const std::vector<const char*> ids = {"L1-23", "L2-66", "L2-13"};
    auto run = [&](int64_t keep) {
        EngineOptions o;
        o.seeds = 5;
        o.deviceKeepBytes = keep;
        return runBuiltin(ids, o);
    };
    const RunResults a = run(0), b = run(int64_t{4} << 30);
    expectSameStatistics(a, b, ids.size());
    for (size_t i = 0; i < a.tasks.size() && i < b.tasks.size(); ++i) {
        SCOPED_TRACE(ids[i]);
        const TaskResult &x = a.tasks[i], &y = b.tasks[i];
        ASSERT_TRUE(x.redundancy && y.redundancy && x.inefficiency && y.inefficiency);
        EXPECT_EQ(x.redundancy->nodes.size(), y.redundancy->nodes.size());
        EXPECT_EQ(x.redundancy->redundantFlops, y.redundancy->redundantFlops);
        EXPECT_EQ(x.inefficiency->bytes, y.inefficiency->bytes);
        EXPECT_EQ(x.inefficiency->flops, y.inefficiency->flops);
        EXPECT_EQ(x.operandDeviceReuses, 0);
        // Filter 6's three seeds and zero-input run and filter 5's three seeds, at least.
        EXPECT_GE(y.operandDeviceReuses, 7);
        EXPECT_GT(y.peakOperandDeviceKeptBytes, 0);
        EXPECT_LE(y.peakOperandDeviceKeptBytes, int64_t{4} << 30);
        // What the kept copies spare is uploads: fewer bytes go to the device with them.
        EXPECT_GT(x.operandUploadBytes, 0);
        EXPECT_LT(y.operandUploadBytes, x.operandUploadBytes);
    }
}

// A worker whose memory cap is three of a task's operand sets (what KernelBench level 1's 16 GiB
// inputs are to an 80 GiB GPU): filter 6 holds one check run's arguments on the device at a time
// and the input-impact pass runs after the output pass; the statistics are the same to the bit and
// filter 6 finds the same ops.
TEST(OperandsGpu, ATightMemoryCapChangesNoResult) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const Suite suite = loadSuite("builtin");
    int fetches = 0;
    for (const char* id : {"L2-66", "L2-13", "KS-10"}) {
        SCOPED_TRACE(id);
        const TaskSpec* spec = suite.find(id);
        ASSERT_NE(spec, nullptr);
        auto run = [&](int64_t cap, int beside) {
            EngineOptions o;
            o.seeds = 5;
            o.inefficiency = false;
            o.memoryCapBytes = cap;
            o.impactBesidePass1 = beside;
            return runBuiltin({id}, o);
        };
        const int64_t set = operandDeviceBytes(*spec, Preset::Full);
        const RunResults a = run(0, -1), b = run(3 * set, 0);
        expectSameStatistics(a, b, 1);
        const TaskResult &x = a.tasks.at(0), &y = b.tasks.at(0);
        ASSERT_TRUE(x.redundancy && y.redundancy);
        ASSERT_TRUE(x.redundancy->error.empty()) << x.redundancy->error;
        ASSERT_TRUE(y.redundancy->error.empty()) << y.redundancy->error;
        EXPECT_FALSE(x.redundancy->oneCheckSet);
        EXPECT_TRUE(y.redundancy->oneCheckSet);
        fetches += y.redundancy->referenceRuns;
        ASSERT_EQ(x.redundancy->nodes.size(), y.redundancy->nodes.size());
        for (size_t i = 0; i < x.redundancy->nodes.size(); ++i) {
            EXPECT_EQ(x.redundancy->nodes[i].op, y.redundancy->nodes[i].op);
            EXPECT_EQ(x.redundancy->nodes[i].line, y.redundancy->nodes[i].line);
        }
        EXPECT_EQ(x.redundancy->redundantFlops, y.redundancy->redundantFlops);
        EXPECT_FALSE(x.impactAfterOutputPass);
        EXPECT_EQ(y.impactAfterOutputPass, !spec->params.empty());
        // The allocator's peak is a real one: at least a set of operands, at most the device (lease
        // 12 read it through a reference into a freed temporary: 94 TB, and a wrong "after").
        for (const TaskResult* t : {&x, &y}) {
            EXPECT_GE(t->peakMemoryBytes, set);
            EXPECT_LE(t->peakMemoryBytes, static_cast<int64_t>(deviceTotalBytes()));
        }
        EXPECT_EQ(y.peakOperandDeviceKeptBytes, 0); // no room left for kept copies
    }
    // KS-10's duplicate passes every check run: the other runs' arguments were fetched again.
    EXPECT_GE(fetches, 3);
}

// EngineOptions::warmUp (cuBLAS, cuDNN and the statistics' kernels loaded on a thread of their
// own beside the first task's drawing) changes no number: the statistics of convolution, matrix
// and reduction tasks are the same with it and without, to the bit, histograms included.
TEST(OperandsGpu, EngineResultsDoNotDependOnTheWarmUp) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const std::vector<const char*> ids = {"L2-1", "L2-12", "L2-6", "L1-23", "L2-13"};
    auto run = [&](bool warm) {
        EngineOptions o;
        o.seeds = 3;
        o.redundancy = false;
        o.inefficiency = false;
        o.warmUp = warm;
        return runBuiltin(ids, o);
    };
    expectSameStatistics(run(true), run(false), ids.size());
}

// The histograms count on the device as on the CPU: exactly, also past 2^24 values in one bin
// (at::histc's float32 counts would round there; StreamStats.HistogramCountsPast2To24InOneBin is
// the CPU's test).
TEST(OperandsGpu, HistogramsCountExactlyPast2To24InOneBin) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const int64_t n = (int64_t{1} << 24) + 3;
    const auto on = at::TensorOptions().device(at::kCUDA, 0);
    OutputAccumulator acc(4);
    acc.add(at::full({n}, 1.0f, on), 0);
    acc.add(at::full({n}, 2.0f, on), 1);
    TaskResult r;
    acc.finish(r);
    uint64_t most = 0;
    for (uint64_t c : r.valueHistogram.counts) most = std::max(most, c);
    EXPECT_EQ(most, static_cast<uint64_t>(n)) << "the first seed's bin";
    EXPECT_EQ(r.valueHistogram.total(), static_cast<uint64_t>(2 * n));
    EXPECT_EQ(r.stdHistogram.total(), static_cast<uint64_t>(n));
}

// A task whose inputs alone are larger than the whole GPU (256 GiB of float32 here): reported out
// of memory before it runs, from the device's own total (no cap set), without drawing anything.
TEST(OperandsGpu, ATaskLargerThanTheDeviceIsReportedWithoutRunning) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const Suite suite = loadSuite("builtin");
    TaskSpec spec = *suite.find("L1-1");
    ASSERT_FALSE(spec.inputs.empty());
    spec.inputs[0].shape = {Dim{int64_t{1} << 20, ""}, Dim{int64_t{1} << 16, ""}};
    EngineOptions o;
    o.device = "cuda";
    o.seeds = 2;
    o.inefficiency = false;
    o.redundancy = false;
    Engine e(o);
    const TaskResult r = e.runTask(spec);
    EXPECT_EQ(r.status, TaskStatus::Error);
    EXPECT_NE(r.error.find("task L1-1: out of memory before it ran"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("GiB this worker may use"), std::string::npos) << r.error;
    EXPECT_EQ(r.operandDraws, 0) << "drawn although it could not run";
    // The untouched task still runs on the same engine.
    const TaskResult ok = e.runTask(*suite.find("L1-1"));
    EXPECT_EQ(ok.status, TaskStatus::Ok) << ok.error;
}

// A CUDA engine takes its page-locked blocks from registered malloc'd memory (faulted in on 8
// threads), not cudaHostAlloc, which held up the running task's uploads (RESULTS.md), and the
// operands drawn there are still exactly the CPU generator's.
TEST(OperandsGpu, PageLockedMemoryIsRegisteredNotHostAllocated) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    if (std::getenv("KS_PINNED_HOST_REGISTER")) GTEST_SKIP() << "KS_PINNED_HOST_REGISTER is set: the default is not in use";
    EngineOptions o;
    o.device = "cuda";
    Engine e(o);
    using Config = c10::cuda::CUDACachingAllocator::CUDAAllocatorConfig;
    EXPECT_TRUE(Config::pinned_use_cuda_host_register());
    EXPECT_EQ(Config::pinned_num_register_threads(), 8u);
    const Suite suite = loadSuite("builtin");
    const TaskSpec& spec = *suite.find("L1-12");
    OperandSource::Options so;
    so.preset = Preset::Full;
    so.device = at::Device(at::kCUDA, 0);
    OperandSource src(spec, so);
    const auto got = src.seed(1);
    seedAll(1);
    const auto inputs = drawInputs(spec, Preset::Full, at::Device(at::kCPU));
    ASSERT_EQ(got.inputs.size(), inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) EXPECT_TRUE(at::equal(got.inputs[i].cpu(), inputs[i])) << "input " << i;
}

namespace {

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }
bool near(double a, double b) {
    if (same(a, b)) return true;
    return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

// Runs `seeds` through an OutputAccumulator and a SeedMoments with KS_FUSED_STATS set to `fusedOn`.
struct Accumulated {
    TaskResult r;
    SpreadMetrics impact;
};
Accumulated accumulate(const std::vector<at::Tensor>& seeds, bool fusedOn) {
    setenv("KS_FUSED_STATS", fusedOn ? "1" : "0", 1);
    OutputAccumulator acc(64);
    SeedMoments m;
    for (size_t s = 0; s < seeds.size(); ++s) {
        acc.add(seeds[s], static_cast<int64_t>(s));
        m.add(seeds[s] * 0.5f + 1.0f);
    }
    Accumulated a;
    acc.finish(a.r);
    a.impact = m.metrics();
    unsetenv("KS_FUSED_STATS");
    return a;
}

} // namespace

// The statistics' own kernels (core/src/stats/fusedstats.cu) give what the ATen path gives: the
// same range, counts, histograms and per-element moments; sums reduced in another order (a seed's
// mean and std, the mean of the std) within 1e-12. Cases: full-size outputs, size-1 axes, a 0-d
// output, values on the histogram's bin edges, later seeds outside the first's range, NaN and inf,
// a constant output, one seed.
TEST(OperandsGpu, FusedStatisticsEqualTheAtenPath) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const auto on = at::TensorOptions().device(at::kCUDA, 0).dtype(at::kFloat);
    at::manual_seed(7);
    std::vector<std::pair<std::string, std::vector<at::Tensor>>> cases;
    auto seeds = [&](const std::vector<int64_t>& shape, int k, auto make) {
        std::vector<at::Tensor> v;
        for (int s = 0; s < k; ++s) v.push_back(make(shape, s));
        return v;
    };
    auto randn = [&](const std::vector<int64_t>& shape, int) { return at::randn(shape, on); };
    cases.emplace_back("conv output 64x64x126x126", seeds({64, 64, 126, 126}, 5, randn));
    cases.emplace_back("5-d, a size-1 axis", seeds({16, 1, 31, 63, 63}, 5, randn));
    cases.emplace_back("0-d", seeds({}, 5, randn));
    cases.emplace_back("one element", seeds({1, 1}, 3, randn));
    cases.emplace_back("bin edges", seeds({4096, 257}, 5, [&](const std::vector<int64_t>& s, int) {
                           return at::floor(at::randn(s, on) * 8.0f) / 4.0f;
                       }));
    cases.emplace_back("later seeds wider", seeds({1000, 33}, 5, [&](const std::vector<int64_t>& s, int k) {
                           return at::randn(s, on) * static_cast<float>(1 + 2 * k) + static_cast<float>(k);
                       }));
    cases.emplace_back("constant", seeds({300, 7}, 5, [&](const std::vector<int64_t>& s, int) { return at::full(s, 3.25f, on); }));
    cases.emplace_back("one seed", seeds({513, 9}, 1, randn));
    cases.emplace_back("NaN and inf", seeds({2000, 50}, 4, [&](const std::vector<int64_t>& s, int k) {
                           at::Tensor t = at::randn(s, on);
                           if (k == 1) t.view({-1})[17] = NAN;
                           if (k == 2) t.view({-1})[40] = INFINITY;
                           if (k == 3) t.view({-1})[41] = -INFINITY;
                           return t;
                       }));
    cases.emplace_back("first seed non-finite", seeds({100, 10}, 3, [&](const std::vector<int64_t>& s, int k) {
                           at::Tensor t = at::randn(s, on);
                           if (k == 0) t.view({-1})[3] = INFINITY;
                           return t;
                       }));
    int bitIdenticalStd = 0;
    for (const auto& [name, v] : cases) {
        SCOPED_TRACE(name);
        const Accumulated a = accumulate(v, false), f = accumulate(v, true);
        const TaskResult &x = a.r, &y = f.r;
        EXPECT_TRUE(same(x.range.maxAbs, y.range.maxAbs)) << x.range.maxAbs << " " << y.range.maxAbs;
        EXPECT_TRUE(same(x.range.min, y.range.min));
        EXPECT_TRUE(same(x.range.max, y.range.max));
        EXPECT_EQ(x.range.nonFinite, y.range.nonFinite);
        ASSERT_EQ(x.axes.perAxis.size(), y.axes.perAxis.size());
        for (size_t d = 1; d < x.axes.perAxis.size(); ++d) EXPECT_TRUE(same(x.axes.perAxis[d], y.axes.perAxis[d])) << "axis " << d;
        EXPECT_TRUE(near(x.outputStd.maxStd, y.outputStd.maxStd)) << x.outputStd.maxStd << " " << y.outputStd.maxStd;
        EXPECT_TRUE(near(x.outputStd.meanStd, y.outputStd.meanStd)) << x.outputStd.meanStd << " " << y.outputStd.meanStd;
        EXPECT_TRUE(near(a.impact.maxStd, f.impact.maxStd));
        EXPECT_TRUE(near(a.impact.meanStd, f.impact.meanStd));
        const bool identical = same(x.outputStd.maxStd, y.outputStd.maxStd) && same(a.impact.maxStd, f.impact.maxStd);
        bitIdenticalStd += identical;
        EXPECT_EQ(x.valueHistogram.lo, y.valueHistogram.lo);
        EXPECT_EQ(x.valueHistogram.hi, y.valueHistogram.hi);
        EXPECT_EQ(x.valueHistogram.counts, y.valueHistogram.counts);
        EXPECT_EQ(x.valueHistogram.underflow, y.valueHistogram.underflow);
        EXPECT_EQ(x.valueHistogram.overflow, y.valueHistogram.overflow);
        EXPECT_EQ(x.valueHistogram.nonFinite, y.valueHistogram.nonFinite);
        EXPECT_EQ(x.stdHistogram.nonFinite, y.stdHistogram.nonFinite);
        EXPECT_EQ(x.stdHistogram.total(), y.stdHistogram.total());
        if (identical) {
            // The same per-element std: the same top edge and the same counts.
            EXPECT_EQ(x.stdHistogram.hi, y.stdHistogram.hi);
            EXPECT_EQ(x.stdHistogram.counts, y.stdHistogram.counts);
        }
        ASSERT_EQ(x.seedStats.size(), y.seedStats.size());
        for (size_t s = 0; s < x.seedStats.size(); ++s) {
            EXPECT_TRUE(same(x.seedStats[s].min, y.seedStats[s].min)) << "seed " << s;
            EXPECT_TRUE(same(x.seedStats[s].max, y.seedStats[s].max)) << "seed " << s;
            EXPECT_TRUE(near(x.seedStats[s].mean, y.seedStats[s].mean))
                << "seed " << s << ": " << x.seedStats[s].mean << " " << y.seedStats[s].mean;
            EXPECT_TRUE(near(x.seedStats[s].std, y.seedStats[s].std))
                << "seed " << s << ": " << x.seedStats[s].std << " " << y.seedStats[s].std;
        }
    }
    std::printf("[fused] per-element std bit-identical to ATen's in %d of %zu cases\n", bitIdenticalStd, cases.size());
}

// Whole tasks: the fused path's flags and metrics equal the ATen path's on CUDA.
TEST(OperandsGpu, FusedStatisticsGiveTheAtenPathsFlags) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const std::vector<const char*> ids = {"L1-12", "L1-23", "L2-1", "L2-9", "L2-13", "L2-14"};
    EngineOptions o;
    o.seeds = 5;
    o.redundancy = false;
    o.inefficiency = false;
    setenv("KS_FUSED_STATS", "0", 1);
    const RunResults a = runBuiltin(ids, o);
    unsetenv("KS_FUSED_STATS");
    const RunResults b = runBuiltin(ids, o);
    ASSERT_EQ(a.tasks.size(), ids.size());
    ASSERT_EQ(b.tasks.size(), ids.size());
    const Thresholds t = Thresholds::defaults();
    for (size_t i = 0; i < ids.size(); ++i) {
        const TaskResult &x = a.tasks[i], &y = b.tasks[i];
        SCOPED_TRACE(x.id);
        ASSERT_EQ(x.status, TaskStatus::Ok) << x.error;
        ASSERT_EQ(y.status, TaskStatus::Ok) << y.error;
        for (int c = 0; c < CriterionCount; ++c)
            EXPECT_EQ(x.flagged(static_cast<Criterion>(c), t), y.flagged(static_cast<Criterion>(c), t)) << "criterion " << c;
        EXPECT_TRUE(same(x.range.maxAbs, y.range.maxAbs));
        EXPECT_TRUE(near(x.outputStd.maxStd, y.outputStd.maxStd));
        EXPECT_TRUE(near(x.outputStd.meanStd, y.outputStd.meanStd));
        EXPECT_TRUE(same(x.axes.minValue(), y.axes.minValue()) || near(x.axes.minValue(), y.axes.minValue()));
        EXPECT_TRUE(near(x.inputImpact.maxStd, y.inputImpact.maxStd));
        EXPECT_EQ(x.valueHistogram.counts, y.valueHistogram.counts);
    }
}

// A pageable host tensor through the staging buffers: the bytes of host.to(device), for sizes that
// end inside a chunk, with more chunks than buffers (each buffer written again after its copy),
// and uploads queued back to back; strided, pinned and CPU-device tensors take host.to().
TEST(OperandsGpu, AStagedUploadIsTheSameBytesAsACopy) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const at::Device cuda(at::kCUDA, 0);
    const int64_t chunk = int64_t{1} << 20;
    at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
    const at::Tensor f =
        at::empty({9 * chunk / 4 + 13}, at::kFloat).normal_(0, 1, g); // 9 chunks and a tail
    const at::Tensor l = at::empty({3, chunk / 8 + 5}, at::kLong).random_(-1000, 1000, g);
    const at::Tensor h = at::empty({chunk / 2 + 1}, at::kHalf).uniform_(-2, 2, g);
    ASSERT_FALSE(f.is_pinned());
    std::vector<at::Tensor> up;
    for (const at::Tensor* t : {&f, &l, &h, &f})
        up.push_back(uploadThroughStaging(*t, cuda, chunk));
    // The default chunk, larger than the tensor: one copy.
    up.push_back(uploadThroughStaging(l, cuda));
    const std::vector<const at::Tensor*> want{&f, &l, &h, &f, &l};
    for (size_t i = 0; i < up.size(); ++i) {
        SCOPED_TRACE(i);
        ASSERT_TRUE(up[i].is_cuda());
        EXPECT_EQ(up[i].sizes(), want[i]->sizes());
        EXPECT_EQ(up[i].scalar_type(), want[i]->scalar_type());
        EXPECT_TRUE(up[i].is_contiguous());
        EXPECT_TRUE(at::equal(up[i].cpu(), *want[i])) << "staged bytes differ from the host tensor";
    }
    // Others: host.to(device).
    const at::Tensor strided = f.narrow(0, 0, 2 * chunk).view({-1, 2}).t();
    EXPECT_TRUE(at::equal(uploadThroughStaging(strided, cuda, chunk).cpu(), strided));
    const at::Tensor pinned = l.pin_memory();
    EXPECT_TRUE(at::equal(uploadThroughStaging(pinned, cuda, chunk).cpu(), l));
    EXPECT_TRUE(uploadThroughStaging(h, at::Device(at::kCPU), chunk).is_cpu());
}

// A pageable host tensor copied from its own pages, locked for the copy (KS_UPLOAD_REGISTER=1):
// the bytes of host.to(device); its pages are unlocked after (a second upload of the same tensor
// registers them again), and pages someone else locked stay locked.
TEST(OperandsGpu, ARegisteredUploadIsTheSameBytesAsACopy) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const at::Device cuda(at::kCUDA, 0);
    at::Generator g = at::make_generator<at::CPUGeneratorImpl>(11);
    const at::Tensor f = at::empty({(int64_t{9} << 20) + 13}, at::kFloat).normal_(0, 1, g);
    const at::Tensor l = at::empty({3, 4099}, at::kLong).random_(-1000, 1000, g);
    for (const at::Tensor* t : {&f, &l, &f}) {
        const at::Tensor up = uploadRegistered(*t, cuda);
        ASSERT_TRUE(up.is_cuda());
        EXPECT_EQ(up.sizes(), t->sizes());
        EXPECT_TRUE(at::equal(up.cpu(), *t)) << "registered bytes differ from the host tensor";
        unsigned int flags = 0;
        EXPECT_NE(cudaHostGetFlags(&flags, const_cast<void*>(t->const_data_ptr())), cudaSuccess)
            << "the upload left the host pages locked";
        (void)cudaGetLastError();
    }
    // Pages already locked by their owner: copied, and left locked.
    void* p = const_cast<void*>(f.const_data_ptr());
    ASSERT_EQ(cudaHostRegister(p, f.nbytes(), cudaHostRegisterDefault), cudaSuccess);
    EXPECT_TRUE(at::equal(uploadRegistered(f, cuda).cpu(), f));
    unsigned int flags = 0;
    EXPECT_EQ(cudaHostGetFlags(&flags, p), cudaSuccess) << "the owner's registration was undone";
    EXPECT_EQ(cudaHostUnregister(p), cudaSuccess);
    // Others as uploadThroughStaging: strided, pinned, a CPU device.
    const at::Tensor strided = l.t();
    EXPECT_TRUE(at::equal(uploadRegistered(strided, cuda).cpu(), strided));
    EXPECT_TRUE(at::equal(uploadRegistered(l.pin_memory(), cuda).cpu(), l));
    EXPECT_TRUE(uploadRegistered(l, at::Device(at::kCPU)).is_cpu());
}
