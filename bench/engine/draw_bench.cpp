// SPDX-License-Identifier: MIT
// ks_draw_bench [elements] [max threads]: seconds to draw one float tensor with normal_ and
// uniform_ on the CPU generator: PyTorch's kernel, the fast form on one thread (ks/core/fastdraw.h)
// and split over 2..max threads, each checked bit for bit against the kernel's draw. Median of 3
// runs into a reused (page-faulted) buffer. KS_FAST_DRAW=0: the split parts drawn by the kernel.
#include "benchutil.h"
#include "ks/core/fastdraw.h"
#include "ks/core/splitdraw.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using ks::bench::Clock;
using ks::bench::median;

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : int64_t{1} << 27;
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int maxThreads = argc > 2 ? std::atoi(argv[2]) : std::max(1, hw - 2);
    at::set_num_threads(1);
    at::Tensor want = at::empty({n}), got = at::empty({n});
    want.fill_(0);
    got.fill_(0);
    std::printf("%lld float elements (%.2f GiB), %d hardware threads, PyTorch CPU capability %s, fast forms %s\n",
                static_cast<long long>(n), 4.0 * static_cast<double>(n) / (1 << 30), hw,
                at::get_cpu_capability().c_str(), ks::fastDrawEnabled() ? "on" : "off (KS_FAST_DRAW=0)");
    {
        at::mt19937 e(7);
        const auto t0 = Clock::now();
        ks::advanceEngine(e, static_cast<uint64_t>(n));
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        std::printf("advancing the generator past them (what a split does before each part): %.3f s, %.2f ns/element\n\n",
                    s, s / n * 1e9);
    }
    std::printf("| kernel | threads | seconds | ns/element | speed-up | helper seconds | same numbers |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---|\n");
    bool allSame = true;
    for (const std::string kernel : {"normal_", "uniform_"}) {
        const bool normal = kernel == "normal_";
        std::vector<double> whole;
        for (int r = 0; r < 3; ++r) {
            at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
            const auto t0 = Clock::now();
            if (normal)
                want.normal_(0, 1, g);
            else
                want.uniform_(0, 1, g);
            whole.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        }
        const double base = median(whole);
        std::printf("| %s | 1 (PyTorch) | %.3f | %.2f | 1.00 | | |\n", kernel.c_str(), base, base / n * 1e9);
        if (ks::fastDrawEnabled()) {
            std::vector<double> secs;
            for (int r = 0; r < 3; ++r) {
                at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
                const auto t0 = Clock::now();
                if (normal)
                    ks::drawNormal(got, 0, 1, g);
                else
                    ks::drawUniform(got, 0, 1, g);
                secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            }
            const bool same = std::memcmp(want.data_ptr(), got.data_ptr(), static_cast<size_t>(n) * 4) == 0;
            allSame = allSame && same;
            const double s = median(secs);
            std::printf("| %s | 1 (fast) | %.3f | %.2f | %.2f | | %s |\n", kernel.c_str(), s, s / n * 1e9, base / s,
                        same ? "yes" : "NO");
            // As the engine draws: into a new tensor each time (its pages faulted in by the draw;
            // THP_MEM_ALLOC_ENABLE=1 asks LibTorch for transparent huge pages).
            secs.clear();
            for (int r = 0; r < 3; ++r) {
                at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
                const auto t0 = Clock::now();
                at::Tensor fresh = at::empty({n});
                if (normal)
                    ks::drawNormal(fresh, 0, 1, g);
                else
                    ks::drawUniform(fresh, 0, 1, g);
                secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            }
            const double f = median(secs);
            std::printf("| %s | 1 (fast, new tensor) | %.3f | %.2f | %.2f | | |\n", kernel.c_str(), f, f / n * 1e9, base / f);
        }
        for (int t = 2; t <= maxThreads; t += (t < 4 ? 1 : 2)) {
            ks::DrawSplit split;
            split.coreLimit = t;
            std::vector<double> secs;
            double helpers = 0;
            for (int r = 0; r < 3; ++r) {
                at::Generator g = at::make_generator<at::CPUGeneratorImpl>(7);
                const auto t0 = Clock::now();
                helpers = normal ? ks::splitNormal(got, 0, 1, g, split) : ks::splitUniform(got, 0, 1, g, split);
                secs.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            }
            const bool same = std::memcmp(want.data_ptr(), got.data_ptr(), static_cast<size_t>(n) * 4) == 0;
            allSame = allSame && same;
            const double s = median(secs);
            std::printf("| %s | %d | %.3f | %.2f | %.2f | %.3f | %s |\n", kernel.c_str(), t, s, s / n * 1e9, base / s,
                        helpers, same ? "yes" : "NO");
        }
    }
    std::printf("\nfast-form variants: %s\n", ks::fastDrawChoices().c_str());
    return allSame ? 0 : 1;
}
