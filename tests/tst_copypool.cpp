// SPDX-License-Identifier: MIT
// CopyPool (ks/core/copypool.h): kept threads copy exactly what memcpy copies.
#include "ks/core/copypool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

namespace {

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    uint32_t x = seed * 2654435761u + 1;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<unsigned char>(x >> 24);
    }
    return v;
}

} // namespace

// Sizes that split evenly, unevenly, into fewer parts than threads, and not at all; each copy
// lands exactly on its bytes and leaves the bytes around it alone.
TEST(CopyPool, CopiesExactlyTheBytesOfMemcpyForEverySplit) {
    ks::CopyPool pool(4);
    EXPECT_EQ(pool.threads(), 4);
    const int64_t minPart = 1000;
    for (int64_t n : {int64_t{1}, int64_t{999}, int64_t{1000}, int64_t{2500}, int64_t{3999}, int64_t{4000},
                      int64_t{4003}, int64_t{65537}, int64_t{1} << 20}) {
        const auto src = pattern(static_cast<size_t>(n), static_cast<unsigned>(n));
        std::vector<unsigned char> dst(static_cast<size_t>(n) + 64, 0xAB);
        pool.copy(dst.data() + 32, src.data(), n, minPart);
        EXPECT_TRUE(std::equal(src.begin(), src.end(), dst.begin() + 32)) << "n=" << n;
        for (int i = 0; i < 32; ++i) {
            ASSERT_EQ(dst[static_cast<size_t>(i)], 0xAB) << "n=" << n << ": wrote before the destination";
            ASSERT_EQ(dst[static_cast<size_t>(n) + 32 + static_cast<size_t>(i)], 0xAB)
                << "n=" << n << ": wrote past the destination";
        }
    }
}

// The same threads serve every copy (the point of the pool): many rounds in a row, each with its
// own bytes, and rounds of different part counts between them.
TEST(CopyPool, ServesManyCopiesInARow) {
    ks::CopyPool pool(3);
    const size_t n = 300000;
    std::vector<unsigned char> dst(n);
    const int64_t before = pool.sharedCopies();
    for (unsigned r = 0; r < 200; ++r) {
        const auto src = pattern(n, r);
        const int64_t len = (r % 3 == 0) ? int64_t{200000} : static_cast<int64_t>(n); // 2 parts or 3
        pool.copy(dst.data(), src.data(), len, 100000);
        ASSERT_TRUE(std::equal(src.begin(), src.begin() + len, dst.begin())) << "round " << r;
    }
    EXPECT_EQ(pool.sharedCopies() - before, 200);
}

// Below two parts' worth it copies on the caller alone; one thread in all never shares.
TEST(CopyPool, SmallCopiesAndOneThreadStayOnTheCaller) {
    ks::CopyPool pool(4);
    const auto src = pattern(5000, 7);
    std::vector<unsigned char> dst(5000);
    pool.copy(dst.data(), src.data(), 5000, 4000);
    EXPECT_EQ(dst, src);
    EXPECT_EQ(pool.sharedCopies(), 0);

    ks::CopyPool alone(1);
    EXPECT_EQ(alone.threads(), 1);
    std::fill(dst.begin(), dst.end(), 0);
    alone.copy(dst.data(), src.data(), 5000, 1);
    EXPECT_EQ(dst, src);
    EXPECT_EQ(alone.sharedCopies(), 0);
    alone.copy(dst.data(), src.data(), 0, 1); // nothing to copy
}

// Two callers at once: each gets its own bytes (the second waits for the first).
TEST(CopyPool, TwoCallersAtOnceEachGetTheirOwnBytes) {
    ks::CopyPool pool(4);
    const size_t n = 1 << 18;
    const auto a = pattern(n, 1), b = pattern(n, 2);
    std::vector<unsigned char> da(n), db(n);
    std::thread other([&] {
        for (int i = 0; i < 50; ++i) pool.copy(db.data(), b.data(), static_cast<int64_t>(n), 1 << 14);
    });
    for (int i = 0; i < 50; ++i) pool.copy(da.data(), a.data(), static_cast<int64_t>(n), 1 << 14);
    other.join();
    EXPECT_EQ(da, a);
    EXPECT_EQ(db, b);
    EXPECT_EQ(pool.sharedCopies(), 100);
}
