// SPDX-License-Identifier: MIT
// Filter 5 on CUDA: the eager forward captured in a CUDA graph and replayed (InefficiencyReport::
// graphMs), which shows how much of a launch-dominated task's eager time is the host's dispatch.
// Label gpu; skips without a device. Timing assertions are ordinal with wide margins.
#include "ks/core/inefficiency.h"
#include "ks/core/suite.h"
#include "../core/src/cudagraph.h"
#include "ks/core/taskspec.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/cuda.h>
#include <ATen/ATen.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

using namespace ks;

namespace {

bool haveGpu() { return torch::cuda::is_available(); }

const DeviceCeilings& cudaCeilings() {
    static const DeviceCeilings c = [] {
        const std::string dir = (std::filesystem::temp_directory_path() / "ks-tst-inefficiency-gpu").string();
        DeviceCeilings m = deviceCeilings("cuda", /*remeasure=*/true, dir);
        std::printf("ceilings: one launch %.4f ms, one replayed kernel %.4f ms, each further one %.4f ms\n",
                    m.launchMs, m.graphLaunchMs, m.graphKernelMs);
        return m;
    }();
    return c;
}

// A task of one input "x" of `dims`, forward `body` (TorchScript, returns a Tensor).
TaskSpec task(const std::string& id, const std::string& body, const std::string& shape, const std::string& dims) {
    const std::string json = R"({"kind": "kernelsieve.task", "format_version": 1, "id": ")" + id +
                             R"(", "level": 0, "name": ")" + id + R"(", "category": "synthetic", "source": )" +
                             nlohmann::json("def forward(x: Tensor) -> Tensor:\n" + body).dump() +
                             R"(, "dims": {"full": )" + dims + R"(}, "inputs": [{"name": "x", "shape": )" + shape +
                             R"(}], "params": []})";
    return parseTaskSpec(json, id + ".json", [](const std::string&) -> std::string { return {}; });
}

InefficiencyReport analyse(const TaskSpec& spec) {
    InefficiencyOptions o;
    o.device = "cuda";
    o.seeds = 1;
    InefficiencyReport r = analyseInefficiency(spec, o, cudaCeilings());
    std::printf("%s: %d launches, eager %.4f ms, graph replay %.4f ms (host %.4f ms), limit %.4f ms, %s\n",
                spec.id.c_str(), r.launches, r.eagerMs, r.graphMs, r.dispatchMs(), r.graphTimingLimitMs(),
                r.graphError.c_str());
    return r;
}

// Sixty elementwise ops on 256 floats: every one a kernel the host dispatches, none with work.
TaskSpec manyTinyOps() {
    std::string body = "    y = x\n";
    for (int i = 0; i < 60; ++i) body += i % 2 ? "    y = y * 1.0001\n" : "    y = y + 0.5\n";
    body += "    return y\n";
    return task("G-tiny-chain", body, R"(["N"])", R"({"N": 256})");
}

} // namespace

TEST(InefficiencyGpu, CeilingsHaveAReplayedKernel) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    EXPECT_GT(cudaCeilings().graphLaunchMs, 0.0);
    EXPECT_LT(cudaCeilings().graphLaunchMs, 1.0); // one tiny kernel, replayed: microseconds
    // A kernel boundary inside a graph costs something, and less than a graph of one kernel.
    EXPECT_GT(cudaCeilings().graphKernelMs, 0.0);
    EXPECT_LT(cudaCeilings().graphKernelMs, cudaCeilings().graphLaunchMs);
}

TEST(InefficiencyGpu, GraphReplayShowsTheHostsShareOfALaunchDominatedTask) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const InefficiencyReport r = analyse(manyTinyOps());
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.launches, 60);
    EXPECT_TRUE(r.graphError.empty()) << r.graphError;
    ASSERT_GT(r.graphMs, 0.0);
    // Replayed, the sixty kernels run back to back: well under the eager time the host's sixty
    // dispatches take, and no faster than one replayed kernel.
    EXPECT_LT(r.graphMs, 0.8 * r.eagerMs);
    EXPECT_GE(r.graphMs, r.graphLaunchMs);
    EXPECT_EQ(r.graphKernelMs, cudaCeilings().graphKernelMs);
    EXPECT_GT(r.dispatchMs(), 0.0);
    EXPECT_EQ(r.hostSyncs, 0) << "sixty elementwise ops never wait for the GPU";
}

TEST(InefficiencyGpu, AGpuBoundTaskIsNotReplayed) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    // One exp over 256 Mi floats (2 GiB moved): milliseconds of GPU work for one launch.
    const InefficiencyReport r = analyse(task("G-big-exp", "    return torch.exp(x)\n", R"(["N"])",
                                              R"({"N": 268435456})"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.eagerMs, r.graphTimingLimitMs());
    EXPECT_EQ(r.graphMs, 0.0);
    EXPECT_TRUE(r.graphError.empty()) << r.graphError;
}

TEST(InefficiencyGpu, AForwardThatCannotBeCapturedIsReportedAndTheDeviceStaysUsable) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    // float(...) copies a value to the host inside the forward: not allowed while capturing.
    const InefficiencyReport r =
        analyse(task("G-host-sync", "    s = float(x.sum())\n    return x * s + 1.0\n", R"(["N"])", R"({"N": 256})"));
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_GT(r.eagerMs, 0.0);
    EXPECT_EQ(r.graphMs, 0.0);
    EXPECT_FALSE(r.graphError.empty());
    // float(...) reads one value back: one wait for the GPU, counted and noted.
    EXPECT_EQ(r.hostSyncs, 1);
    bool waits = false;
    for (const auto& n : r.notes) waits = waits || n.find("waits for the GPU 1 time(s)") != std::string::npos;
    EXPECT_TRUE(waits);
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find("CUDA-graph replay was not measured") != std::string::npos;
    EXPECT_TRUE(noted);
    // The failed capture left nothing behind. The caching allocator does not think a capture is
    // still under way: a block last used on a second stream is freed once its work is done (while
    // a capture is registered, such frees wait until none is, which would be for good).
    {
        const c10::DeviceIndex dev = c10::cuda::current_device();
        auto reserved = [dev] {
            return c10::cuda::CUDACachingAllocator::getDeviceStats(dev)
                .reserved_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)]
                .current;
        };
        torch::cuda::synchronize();
        c10::cuda::CUDACachingAllocator::emptyCache();
        const int64_t before = reserved();
        {
            at::Tensor t = at::ones({int64_t{64} << 20}, at::TensorOptions().device(at::kCUDA).dtype(at::kFloat));
            t.record_stream(c10::cuda::getStreamFromPool(false, dev).unwrap()); // 256 MiB, used on another stream
        }
        torch::cuda::synchronize();
        c10::cuda::CUDACachingAllocator::emptyCache();
        EXPECT_LE(reserved(), before) << "a 256 MiB block used on a second stream was not given back";
    }
    // And the next task is captured and replayed.
    const InefficiencyReport next = analyse(manyTinyOps());
    ASSERT_TRUE(next.error.empty()) << next.error;
    EXPECT_GT(next.graphMs, 0.0) << next.graphError;
}

TEST(InefficiencyGpu, ACaptureGetsTheMemoryTheCacheHeldForOtherWork) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    // Earlier work of the task leaves almost all of the device cached and unused (lease 15's L3-32:
    // 69 GiB reserved, 9 GiB in use). A capture allocates in its own pool and cannot have those
    // blocks handed back while it runs, so it must be given them before it starts.
    constexpr int64_t kOut = int64_t{1} << 30; // the forward's output: 1 GiB, on top of the input
    const at::TensorOptions f32 = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
    const at::Tensor x = at::arange(64, f32);
    c10::cuda::CUDACachingAllocator::emptyCache();
    size_t freeBytes = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&freeBytes, &total), cudaSuccess);
    const int64_t keepFree = int64_t{512} << 20; // less than the capture needs
    ASSERT_GT(static_cast<int64_t>(freeBytes), kOut + keepFree) << "the device has too little free memory for the test";
    {
        const at::Tensor hog = at::empty({static_cast<int64_t>(freeBytes) - keepFree}, f32.dtype(at::kByte));
    } // freed: cached by the allocator, reserved and unused
    const int64_t reps = kOut / (64 * 4);
    auto forward = [&] { return x.repeat({reps}) + 1.0; };
    try {
        CapturedForward graph(forward, /*threadLocal=*/true);
        graph.replay();
        torch::cuda::synchronize();
        ASSERT_TRUE(graph.output().defined());
        EXPECT_EQ(graph.output().numel(), 64 * reps);
        EXPECT_EQ(graph.output()[reps * 64 - 1].item<float>(), 64.0f);
    } catch (const std::exception& e) {
        c10::cuda::CUDACachingAllocator::emptyCache();
        FAIL() << "the capture failed beside memory the cache held: " << e.what();
    }
    c10::cuda::CUDACachingAllocator::emptyCache();
}

TEST(InefficiencyGpu, AFailedCaptureGivesItsPoolBackToTheDevice) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    // The forward fills 1 GiB in the graph's pool, then reads a value back, which a capture does
    // not allow. The pool's memory goes back to the device with the failure, not at some later
    // release of the cache that a long filter run may never make.
    constexpr int64_t kFill = int64_t{1} << 30;
    const at::TensorOptions f32 = at::TensorOptions().device(at::kCUDA).dtype(at::kFloat);
    const at::Tensor x = at::arange(64, f32);
    const int64_t reps = kFill / (64 * 4);
    auto forward = [&] {
        const at::Tensor y = x.repeat({reps});
        return x * y.sum().item<float>();
    };
    torch::cuda::synchronize();
    c10::cuda::CUDACachingAllocator::emptyCache();
    size_t before = 0, after = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&before, &total), cudaSuccess);
    EXPECT_THROW(CapturedForward(forward, /*threadLocal=*/true), Error);
    ASSERT_EQ(cudaMemGetInfo(&after, &total), cudaSuccess);
    EXPECT_GT(static_cast<int64_t>(after), static_cast<int64_t>(before) - kFill / 4)
        << "the failed capture's pool still holds its memory: "
        << (static_cast<int64_t>(before) - static_cast<int64_t>(after)) / (1 << 20) << " MiB";
    // And the device still captures.
    CapturedForward ok([&] { return x + 1.0; }, /*threadLocal=*/true);
    ok.replay();
    torch::cuda::synchronize();
    EXPECT_EQ(ok.output()[63].item<float>(), 64.0f);
}

TEST(InefficiencyGpu, ATracedChannelShuffleIsCaptured) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    // Its trace computes `channels // groups` on 0-dim host tensors and a 0-dim tensor constant
    // (tests/data/traced/README.md). With that constant loaded onto the GPU, the division ran
    // there and was read back inside the forward, and the capture failed (ShuffleNet, ViT, Swin,
    // CvT and Mamba2 of level 3 on the H200, lease 5).
    const Suite s = loadSuiteDir(std::string(KS_TEST_DATA) + "/traced");
    ASSERT_EQ(s.tasks.size(), 1u);
    const InefficiencyReport r = analyse(s.tasks[0]);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.graphError.empty()) << r.graphError;
    EXPECT_GT(r.graphMs, 0.0);
    EXPECT_EQ(r.hostSyncs, 0) << "the division by the groups stays on the host";
}

// A GPU import keeps a number the forward puts on the host there (the exporter's device constants
// follow the inputs only where the trace saw the GPU): 0 waits, as in eager PyTorch. The same number
// asked for on the input's device is the file's own copy and wait: 1 (KernelBench's L2-31 and L2-83,
// lease 8).
TEST(InefficiencyGpu, AHostNumberOfAGpuImportedForwardStaysOnTheHost) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const std::string python = KS_TORCH_PYTHON;
    if (python.empty() || std::system(("'" + python + "' -c 'import torch' >/dev/null 2>&1").c_str()) != 0)
        GTEST_SKIP() << "no Python with torch at KS_TORCH_PYTHON='" << python << "'";
    const std::filesystem::path out = std::filesystem::path(KS_WORK_DIR) / "host_scalar";
    std::filesystem::create_directories(out.parent_path()); // the work folder of a fresh build tree
    const std::string cmd = "rm -rf '" + out.string() + "' && '" + std::string(KS_CLI) + "' import-kernelbench '" +
                            std::string(KS_TEST_DATA) + "/host_scalar/level1' --out '" + out.string() +
                            "' --python '" + python + "' --jobs 1 --trace-device cuda >'" + out.string() +
                            ".log' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "import failed: see " << out.string() << ".log";
    const Suite s = loadSuiteDir(out.string());
    ASSERT_EQ(s.tasks.size(), 2u);
    const InefficiencyReport host = analyse(*s.find("L1-1"));
    ASSERT_TRUE(host.error.empty()) << host.error;
    EXPECT_EQ(host.hostSyncs, 0) << "torch.tensor(limit) stays a number on the host";
    const InefficiencyReport device = analyse(*s.find("L1-2"));
    ASSERT_TRUE(device.error.empty()) << device.error;
    EXPECT_EQ(device.hostSyncs, 1) << "torch.tensor(limit, device=x.device): the file's own copy";
}

TEST(InefficiencyGpu, HostSyncsAreCountedOnTheCallingThreadOnly) {
    if (!haveGpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped (run it on the GPU machine)";
    const at::Tensor x = at::ones({16}, at::TensorOptions().device(at::kCUDA));
    // Three values read back, one stream synchronisation.
    EXPECT_EQ(countHostSyncs([&] {
                  for (int i = 0; i < 3; ++i) (void)x.sum().item<float>();
                  c10::cuda::getCurrentCUDAStream().synchronize();
              }),
              4);
    EXPECT_EQ(countHostSyncs([&] { (void)(x * 2 + 1); }), 0);
    // Another thread's wait, meanwhile, is not this thread's.
    EXPECT_EQ(countHostSyncs([&] {
                  std::thread other([&] { (void)x.sum().item<float>(); });
                  other.join();
              }),
              0);
    // The mode is back to what it was: a read-back outside the count warns nowhere.
    EXPECT_EQ(c10::cuda::warning_state().get_sync_debug_mode(), c10::cuda::SyncDebugMode::L_DISABLED);
}
