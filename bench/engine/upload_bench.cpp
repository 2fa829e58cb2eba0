// SPDX-License-Identifier: MIT
// ks_upload_bench [GiB ...] (default 1 4 16): seconds to put one pageable float tensor on the GPU,
// three ways: the driver's own copy (host.to(device)), the engine's staging buffers
// (uploadThroughStaging; KS_STAGED_UPLOAD_THREADS sets their copy threads) and its own pages
// locked for the copy (uploadRegistered, KS_UPLOAD_REGISTER=1 in the engine), each from a fresh
// host tensor as the engine draws them, checked equal on the device; and a fourth, the ceiling of
// drawing large tensors page-locked (KS_PINNED_MAX_GIB in the engine): the copy from a page-locked
// tensor alone, its allocation and fill not timed (the engine's pinned cache reuses blocks).
// Median of 3 runs; GB/s of the tensor's bytes. Not a test: run it on
// the GPU machine (with and without THP_MEM_ALLOC_ENABLE=1) and put its table in RESULTS.md.
#include "benchutil.h"
#include "ks/core/operands.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using ks::bench::Clock;
using ks::bench::median;

int main(int argc, char** argv) {
    if (!torch::cuda::is_available()) {
        std::fprintf(stderr, "ks_upload_bench: no CUDA device\n");
        return 2;
    }
    std::vector<double> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atof(argv[i]));
    if (sizes.empty()) sizes = {1, 4, 16};
    const at::Device cuda(at::kCUDA, 0);
    const char* thp = std::getenv("THP_MEM_ALLOC_ENABLE");
    const char* threads = std::getenv("KS_STAGED_UPLOAD_THREADS");
    std::printf("THP_MEM_ALLOC_ENABLE=%s, KS_STAGED_UPLOAD_THREADS=%s\n\n", thp ? thp : "(unset)",
                threads ? threads : "(unset: min(4, cores / 4))");
    std::printf("| GiB | way | seconds | GB/s | same bytes |\n|---:|---|---:|---:|---|\n");
    using Upload = std::function<at::Tensor(const at::Tensor&)>;
    struct Way {
        std::string name;
        bool pinnedSource; // the host copy is made page-locked (untimed), as if drawn there
        Upload up;
    };
    const std::vector<Way> ways = {
        {"host.to(device)", false, [&](const at::Tensor& h) { return h.to(cuda); }},
        {"staging buffers", false, [&](const at::Tensor& h) { return ks::uploadThroughStaging(h, cuda); }},
        {"registered pages", false, [&](const at::Tensor& h) { return ks::uploadRegistered(h, cuda); }},
        {"drawn page-locked", true, [&](const at::Tensor& h) { return h.to(cuda, /*non_blocking=*/true); }},
    };
    bool allSame = true;
    for (const double gib : sizes) {
        const auto n = static_cast<int64_t>(gib * double(int64_t{1} << 30) / 4);
        // Drawn once (one thread: about a minute at 16 GiB); each run uploads a fresh copy, its
        // pages faulted in by the copy as the engine's by its draw.
        at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
        const at::Tensor drawn = at::empty({n}, at::kFloat).uniform_(-1, 1, g);
        at::Tensor want;
        for (const auto& [name, pinnedSource, up] : ways) {
            std::vector<double> secs;
            bool same = true;
            for (int r = 0; r < 3; ++r) {
                const at::Tensor host =
                    pinnedSource ? at::empty_like(drawn, drawn.options().pinned_memory(true)).copy_(drawn) : drawn.clone();
                torch::cuda::synchronize();
                const auto t0 = Clock::now();
                const at::Tensor dev = up(host);
                torch::cuda::synchronize();
                secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
                if (!want.defined()) want = dev;
                else same = same && at::equal(dev, want);
            }
            allSame = allSame && same;
            const double s = median(secs);
            std::printf("| %.2f | %s | %.3f | %.1f | %s |\n", gib, name.c_str(), s, 4.0 * double(n) / s / 1e9,
                        same ? "yes" : "NO");
            std::fflush(stdout);
        }
    }
    return allSame ? 0 : 1;
}
