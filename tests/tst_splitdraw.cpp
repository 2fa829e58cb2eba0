// SPDX-License-Identifier: MIT
// A large tensor drawn in parts on several threads (ks/core/splitdraw.h) must hold exactly the
// numbers of PyTorch's single-threaded kernel, and leave the generator exactly as it does.
#include "ks/core/splitdraw.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include "drawtestutil.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace ks;
using ks::test::sameBytes;
using ks::test::seeded;

namespace {

struct Kind {
    std::string name;
    at::ScalarType dtype;
    std::function<void(at::Tensor&, at::Generator&)> whole;
    std::function<double(at::Tensor&, at::Generator&, const DrawSplit&)> split;
};

std::vector<Kind> kinds() {
    return {
        {"normal(0, 1)", at::kFloat, [](at::Tensor& t, at::Generator& g) { t.normal_(0, 1, g); },
         [](at::Tensor& t, at::Generator& g, const DrawSplit& s) { return splitNormal(t, 0, 1, g, s); }},
        {"normal(2, 0.5)", at::kFloat, [](at::Tensor& t, at::Generator& g) { t.normal_(2, 0.5, g); },
         [](at::Tensor& t, at::Generator& g, const DrawSplit& s) { return splitNormal(t, 2, 0.5, g, s); }},
        {"uniform(0, 1)", at::kFloat, [](at::Tensor& t, at::Generator& g) { t.uniform_(0, 1, g); },
         [](at::Tensor& t, at::Generator& g, const DrawSplit& s) { return splitUniform(t, 0, 1, g, s); }},
        {"uniform(-0.3, 0.3)", at::kFloat, [](at::Tensor& t, at::Generator& g) { t.uniform_(-0.3, 0.3, g); },
         [](at::Tensor& t, at::Generator& g, const DrawSplit& s) { return splitUniform(t, -0.3, 0.3, g, s); }},
        {"random(0, 10)", at::kLong, [](at::Tensor& t, at::Generator& g) { t.random_(0, 10, g); },
         [](at::Tensor& t, at::Generator& g, const DrawSplit& s) { return splitRandom(t, 0, 10, g, s); }},
        // A range of 2^28 or more takes two 32-bit outputs an element.
        {"random(-5, 2^30)", at::kLong, [](at::Tensor& t, at::Generator& g) { t.random_(-5, int64_t{1} << 30, g); },
         [](at::Tensor& t, at::Generator& g, const DrawSplit& s) {
             return splitRandom(t, -5, int64_t{1} << 30, g, s);
         }},
    };
}

} // namespace

// advanceEngine(e, n) must be n calls of e(), from a fresh seed and from mid-stream, across
// regenerations of the state (every 624 outputs) and exactly at their edges.
TEST(SplitDraw, AdvanceIsThatManyCalls) {
    for (uint64_t seed : {0ull, 1ull, 42ull, 123456789ull}) {
        for (int start : {0, 1, 623, 624, 625, 1000}) {
            for (uint64_t n : {0ull, 1ull, 2ull, 622ull, 623ull, 624ull, 625ull, 1247ull, 1248ull, 1249ull, 100003ull}) {
                at::mt19937 a(seed), b(seed);
                for (int i = 0; i < start; ++i) {
                    a();
                    b();
                }
                for (uint64_t i = 0; i < n; ++i) a();
                advanceEngine(b, n);
                const auto x = a.data(), y = b.data();
                ASSERT_EQ(x.left_, y.left_) << seed << " " << start << " " << n;
                ASSERT_EQ(x.next_, y.next_) << seed << " " << start << " " << n;
                ASSERT_TRUE(x.state_ == y.state_) << seed << " " << start << " " << n;
                ASSERT_EQ(a(), b()) << "the next output, " << seed << " " << start << " " << n;
            }
        }
    }
}

// Split into up to 8 parts of at least 16 elements: sizes that are and are not multiples of 16
// (normal_ redraws the last 16 of those), fresh and mid-stream generators; the values bit for bit,
// the generator's whole state (torch.get_rng_state) after, and its next numbers.
TEST(SplitDraw, PartsHoldTheKernelsNumbers) {
    DrawSplit split;
    split.coreLimit = 8;
    split.minPartElements = 16;
    for (const auto& k : kinds()) {
        for (int64_t n : {32, 33, 47, 48, 63, 200, 1000, 4099, 100003}) {
            for (int burn : {0, 5, 700, -3}) {
                SCOPED_TRACE(k.name + ", " + std::to_string(n) + " elements, " + std::to_string(burn) + " burnt");
                at::Generator g1 = seeded(7, burn), g2 = seeded(7, burn);
                at::Tensor want = at::empty({n}, at::TensorOptions().dtype(k.dtype));
                at::Tensor got = at::empty({n}, at::TensorOptions().dtype(k.dtype));
                k.whole(want, g1);
                const double helpers = k.split(got, g2, split);
                EXPECT_TRUE(sameBytes(want, got));
                EXPECT_TRUE(sameBytes(g1.get_state(), g2.get_state()));
                EXPECT_TRUE(sameBytes(at::empty({40}).uniform_(0, 1, g1), at::empty({40}).uniform_(0, 1, g2)));
                if (n >= 64) {
                    EXPECT_GT(helpers, 0.0) << "drawn on one thread: the test would not test the split";
                }
            }
        }
    }
}

// A shaped (4-D) tensor: parts cut through its rows, the same numbers.
TEST(SplitDraw, ShapedTensorsSplitLikeFlatOnes) {
    DrawSplit split;
    split.coreLimit = 5;
    split.minPartElements = 100;
    at::Generator g1 = seeded(3, 0), g2 = seeded(3, 0);
    at::Tensor want = at::empty({3, 7, 11, 13});
    at::Tensor got = at::empty({3, 7, 11, 13});
    want.normal_(0, 1, g1);
    EXPECT_GT(splitNormal(got, 0, 1, g2, split), 0.0);
    EXPECT_TRUE(sameBytes(want, got));
    EXPECT_TRUE(sameBytes(g1.get_state(), g2.get_state()));
}

// No helper while the process's drawing threads already take every core allowed, nor while a
// timing asks for none (NoHelpersNow); and never below the smallest part. Either way the numbers are the kernel's.
TEST(SplitDraw, HelpersOnlyOnSpareCores) {
    DrawSplit split;
    split.coreLimit = 3;
    split.minPartElements = 64;
    const int base = drawingThreadsNow();
    {
        DrawingNow a, b, c;
        EXPECT_EQ(drawingThreadsNow(), base + 3);
        at::Generator g1 = seeded(11, 0), g2 = seeded(11, 0);
        at::Tensor want = at::empty({10000}), got = at::empty({10000});
        want.normal_(0, 1, g1);
        EXPECT_EQ(splitNormal(got, 0, 1, g2, split), 0.0) << "a helper beyond the core limit";
        EXPECT_TRUE(sameBytes(want, got));
        EXPECT_TRUE(sameBytes(g1.get_state(), g2.get_state()));
    }
    EXPECT_EQ(drawingThreadsNow(), base);
    {
        // Nor while a timing asks for none, whatever cores are spare.
        const NoHelpersNow quiet;
        at::Generator g1 = seeded(12, 0), g2 = seeded(12, 0);
        at::Tensor want = at::empty({10000}), got = at::empty({10000});
        want.normal_(0, 1, g1);
        EXPECT_EQ(splitNormal(got, 0, 1, g2, split), 0.0) << "a helper during a timing";
        EXPECT_TRUE(sameBytes(want, got));
    }
    {
        at::Generator g1 = seeded(12, 0), g2 = seeded(12, 0);
        at::Tensor want = at::empty({10000}), got = at::empty({10000});
        want.normal_(0, 1, g1);
        EXPECT_GT(splitNormal(got, 0, 1, g2, split), 0.0) << "no helper once the timing is over";
        EXPECT_TRUE(sameBytes(want, got));
    }
    at::Generator g1 = seeded(11, 0), g2 = seeded(11, 0);
    at::Tensor want = at::empty({127}), got = at::empty({127});
    want.uniform_(0, 1, g1);
    EXPECT_EQ(splitUniform(got, 0, 1, g2, split), 0.0) << "split below two parts of 64";
    EXPECT_TRUE(sameBytes(want, got));
    EXPECT_EQ(drawingThreadsNow(), base) << "helpers not given back";
}

// A non-contiguous tensor is drawn whole (the kernels' order is not a flat one there).
TEST(SplitDraw, NonContiguousTensorsAreDrawnWhole) {
    DrawSplit split;
    split.coreLimit = 8;
    split.minPartElements = 16;
    at::Generator g1 = seeded(5, 0), g2 = seeded(5, 0);
    at::Tensor want = at::empty({64, 32}).t(), got = at::empty({64, 32}).t();
    want.normal_(0, 1, g1);
    EXPECT_EQ(splitNormal(got, 0, 1, g2, split), 0.0);
    EXPECT_TRUE(at::equal(want, got));
    EXPECT_TRUE(sameBytes(g1.get_state(), g2.get_state()));
}
