// SPDX-License-Identifier: MIT
// Kept host threads for large memcpys (ks/core/copypool.h).
#include "ks/core/copypool.h"

#include <algorithm>
#include <cstring>
#include <system_error>

namespace ks {

CopyPool::CopyPool(int threads) {
    // A thread the system will not start leaves the pool with those it has (at worst the caller).
    try {
        for (int i = 1; i < threads; ++i)
            workers_.emplace_back([this, i] { work(i); });
    } catch (const std::system_error&) {
    }
}

CopyPool::~CopyPool() {
    {
        const std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    start_.notify_all();
    for (auto& t : workers_)
        t.join();
}

// Worker `index` copies part `index` of each round that has more than `index` parts.
void CopyPool::work(int index) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
        start_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
        if (index >= parts_) continue;
        const int64_t a = index * part_, len = std::min(n_, a + part_) - a;
        char* dst = dst_;
        const char* src = src_;
        lock.unlock();
        if (len > 0) std::memcpy(dst + a, src + a, static_cast<size_t>(len));
        lock.lock();
        if (--pending_ == 0) finished_.notify_one();
    }
}

void CopyPool::copy(void* dst, const void* src, int64_t n, int64_t minPart) {
    if (n <= 0) return;
    const int k = static_cast<int>(std::clamp<int64_t>(n / std::max<int64_t>(minPart, 1), 1, threads()));
    if (k == 1) {
        std::memcpy(dst, src, static_cast<size_t>(n));
        return;
    }
    const std::lock_guard<std::mutex> one(one_);
    const int64_t part = (n + k - 1) / k;
    {
        const std::lock_guard<std::mutex> lock(mu_);
        dst_ = static_cast<char*>(dst);
        src_ = static_cast<const char*>(src);
        n_ = n;
        part_ = part;
        parts_ = k;
        pending_ = k - 1;
        ++round_;
    }
    start_.notify_all();
    std::memcpy(dst, src, static_cast<size_t>(std::min(n, part)));
    std::unique_lock<std::mutex> lock(mu_);
    finished_.wait(lock, [&] { return pending_ == 0; });
}

int64_t CopyPool::sharedCopies() const {
    const std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(round_);
}

} // namespace ks
