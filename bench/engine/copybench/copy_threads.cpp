// SPDX-License-Identifier: MIT
// Host-only: what starting threads for every 64 MiB staging chunk costs against keeping them
// (ks::CopyPool, what core/src/draw/staging.cpp's parallelCopy uses). Build from the repository root:
// g++ -O2 -std=c++20 -pthread -Icore/include bench/engine/copybench/copy_threads.cpp core/src/copypool.cpp
// Prints the GB/s of each way for 1..N threads over `total` bytes copied chunk by chunk.
#include "ks/core/copypool.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const int64_t chunk = int64_t{64} << 20;
    const int64_t total = (argc > 1 ? std::atoll(argv[1]) : 8) * (int64_t{1} << 30);
    const int maxThreads = argc > 2 ? std::atoi(argv[2]) : 8;
    // A source larger than the caches, walked chunk by chunk into 4 rotating destination buffers.
    const int64_t srcBytes = int64_t{2} << 30;
    std::vector<char> src(size_t(srcBytes), 1), dst(size_t(4 * chunk), 0);
    using C = std::chrono::steady_clock;
    std::printf("threads\tspawn_GBps\tpool_GBps\n");
    for (int k = 1; k <= maxThreads; k *= 2) {
        double t[2];
        for (int way = 0; way < 2; ++way) {
            ks::CopyPool p(way == 1 ? k : 1);
            const auto t0 = C::now();
            for (int64_t off = 0, i = 0; off < total; off += chunk, ++i) {
                char* d = dst.data() + (i % 4) * chunk;
                const char* s = src.data() + (off % srcBytes);
                if (way == 0) ks::CopyPool(k).copy(d, s, chunk, int64_t{4} << 20); // started per chunk
                else p.copy(d, s, chunk, int64_t{4} << 20);
            }
            t[way] = std::chrono::duration<double>(C::now() - t0).count();
        }
        std::printf("%d\t%.2f\t%.2f\n", k, total / t[0] / 1e9, total / t[1] / 1e9);
    }
}
