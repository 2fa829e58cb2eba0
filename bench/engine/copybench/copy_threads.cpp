// SPDX-License-Identifier: MIT
// Host-only: what starting threads for every 64 MiB staging chunk costs against a pool that keeps
// them (core/src/draw/staging.cpp's parallelCopy). Build: g++ -O2 -std=c++20 -pthread.
// Prints the GB/s of each way for 1..N threads over `total` bytes copied chunk by chunk.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace {

void spawnCopy(char* dst, const char* src, int64_t n, int k) {
    const int64_t part = (n + k - 1) / k;
    std::vector<std::thread> pool;
    for (int i = 1; i < k; ++i) {
        const int64_t a = i * part, len = std::min(n, a + part) - a;
        if (len > 0) pool.emplace_back([=] { std::memcpy(dst + a, src + a, size_t(len)); });
    }
    std::memcpy(dst, src, size_t(std::min(n, part)));
    for (auto& t : pool) t.join();
}

struct Pool {
    std::mutex mu;
    std::condition_variable go, doneCv;
    std::vector<std::thread> ts;
    uint64_t gen = 0;
    int pending = 0;
    bool stop = false;
    char* dst = nullptr;
    const char* src = nullptr;
    int64_t n = 0, part = 0;
    explicit Pool(int workers) {
        for (int i = 0; i < workers; ++i)
            ts.emplace_back([this, i] {
                uint64_t seen = 0;
                for (;;) {
                    std::unique_lock l(mu);
                    go.wait(l, [&] { return stop || gen != seen; });
                    if (stop) return;
                    seen = gen;
                    const int64_t a = (i + 1) * part, len = std::min(n, a + part) - a;
                    char* d = dst; const char* s = src;
                    l.unlock();
                    if (len > 0) std::memcpy(d + a, s + a, size_t(len));
                    l.lock();
                    if (--pending == 0) doneCv.notify_one();
                }
            });
    }
    ~Pool() { { std::lock_guard l(mu); stop = true; } go.notify_all(); for (auto& t : ts) t.join(); }
    void copy(char* d, const char* s, int64_t bytes) {
        const int k = int(ts.size()) + 1;
        {
            std::lock_guard l(mu);
            dst = d; src = s; n = bytes; part = (bytes + k - 1) / k; pending = int(ts.size()); ++gen;
        }
        go.notify_all();
        std::memcpy(d, s, size_t(std::min(bytes, part)));
        std::unique_lock l(mu);
        doneCv.wait(l, [&] { return pending == 0; });
    }
};

} // namespace

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
            Pool p(way == 1 ? k - 1 : 0);
            const auto t0 = C::now();
            for (int64_t off = 0, i = 0; off < total; off += chunk, ++i) {
                char* d = dst.data() + (i % 4) * chunk;
                const char* s = src.data() + (off % srcBytes);
                if (way == 0) spawnCopy(d, s, chunk, k); else p.copy(d, s, chunk);
            }
            t[way] = std::chrono::duration<double>(C::now() - t0).count();
        }
        std::printf("%d\t%.2f\t%.2f\n", k, total / t[0] / 1e9, total / t[1] / 1e9);
    }
}
