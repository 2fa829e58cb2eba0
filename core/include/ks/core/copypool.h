// SPDX-License-Identifier: MIT
#pragma once
// memcpy on several host threads that stay started between copies.
//
// The staging upload (ks/core/operands.h) copies each 64 MiB chunk into a page-locked buffer on
// several threads. Starting them for every chunk cost a fifth of the copy rate on an H100 host of
// 16 cores: 64 MiB chunks at eight threads, 27.7 GB/s started per chunk against 35.1 GB/s kept
// (bench/engine/copybench/copy_threads.cpp, bench/engine/RESULTS.md, lease 16).
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace ks {

class CopyPool {
public:
    // `threads` in all, the caller's included: threads - 1 are started here (none for 1 or less;
    // fewer where the system refuses one).
    explicit CopyPool(int threads);
    ~CopyPool();
    CopyPool(const CopyPool&) = delete;
    CopyPool& operator=(const CopyPool&) = delete;

    // std::memcpy(dst, src, n) in up to threads() parts of at least minPart bytes, the first on the
    // calling thread; returns when all are done. One copy at a time: a second caller waits.
    void copy(void* dst, const void* src, int64_t n, int64_t minPart = int64_t{4} << 20);
    int threads() const { return static_cast<int>(workers_.size()) + 1; }
    // Copies that used the kept threads (for tests).
    int64_t sharedCopies() const;

private:
    void work(int index);

    std::mutex one_; // one copy at a time
    mutable std::mutex mu_;
    std::condition_variable start_, finished_;
    std::vector<std::thread> workers_;
    uint64_t round_ = 0; // copies handed to the workers so far
    int pending_ = 0, parts_ = 0;
    bool stop_ = false;
    char* dst_ = nullptr;
    const char* src_ = nullptr;
    int64_t n_ = 0, part_ = 0;
};

} // namespace ks
