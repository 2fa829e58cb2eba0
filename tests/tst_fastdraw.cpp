// SPDX-License-Identifier: MIT
// The fast samplers (ks/core/fastdraw.h) must give exactly the numbers of PyTorch's own CPU
// kernels and leave the generator exactly as they do, for every size, offset and parameter the
// engine draws with; and on x86-64 with this PyTorch every probe must find its variant (else the
// engine silently draws at the kernel's speed). ctest runs these under PyTorch's default, AVX2
// and (where the CPU has it) AVX-512 kernels: ATEN_CPU_CAPABILITY picks which of them runs.
#include "ks/core/fastdraw.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include "drawtestutil.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace ks;
using ks::test::sameBytes;
using ks::test::seeded;

namespace {

struct Case {
    std::string name;
    at::ScalarType dtype;
    std::function<void(at::Tensor&, at::Generator&)> kernel, fast;
};

std::vector<Case> cases() {
    auto normal = [](double m, double s) {
        return Case{"normal(" + std::to_string(m) + ", " + std::to_string(s) + ")", at::kFloat,
                    [=](at::Tensor& t, at::Generator& g) { t.normal_(m, s, g); },
                    [=](at::Tensor& t, at::Generator& g) { drawNormal(t, m, s, g); }};
    };
    auto uniform = [](double a, double b) {
        return Case{"uniform(" + std::to_string(a) + ", " + std::to_string(b) + ")", at::kFloat,
                    [=](at::Tensor& t, at::Generator& g) { t.uniform_(a, b, g); },
                    [=](at::Tensor& t, at::Generator& g) { drawUniform(t, a, b, g); }};
    };
    auto random = [](int64_t a, int64_t b) {
        return Case{"random(" + std::to_string(a) + ", " + std::to_string(b) + ")", at::kLong,
                    [=](at::Tensor& t, at::Generator& g) { t.random_(a, b, g); },
                    [=](at::Tensor& t, at::Generator& g) { drawRandom(t, a, b, g); }};
    };
    return {normal(0, 1), normal(2, 0.5), normal(-1, 3.7), uniform(0, 1), uniform(-0.3, 0.3),
            // nn.Linear's default init for 512 inputs (kaiming_uniform_ with a = sqrt(5)):
            // +-1/sqrt(512)
            uniform(-0.044194173824159216, 0.044194173824159216), uniform(2, 5), random(0, 10),
            random(-5, 1000), random(0, (int64_t{1} << 28) - 1),
            // A range of 2^28 or more takes two outputs an element: the kernel draws it.
            random(-5, int64_t{1} << 30)};
}

// On x86-64 this PyTorch's kernels are matched: a ": kernel" among this process's choices means a
// probe found no variant and the engine would draw at the kernel's speed (the draws stay right).
void expectEveryProbeMatched() {
    const std::string choices = fastDrawChoices();
    ASSERT_FALSE(choices.empty());
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    EXPECT_EQ(choices.find(": kernel"), std::string::npos) << choices;
#endif
}

} // namespace

TEST(FastDraw, SameNumbersAndStateAsTheKernel) {
    for (const auto& c : cases()) {
        for (int64_t n :
             {int64_t{4096}, int64_t{4096 + 7}, int64_t{65536 + 9}, int64_t{(1 << 20) + 5}}) {
            for (int burn : {0, 1000, -3}) {
                SCOPED_TRACE(c.name + ", " + std::to_string(n) + " elements, burn " +
                             std::to_string(burn));
                at::Generator gk = seeded(42, burn), gf = seeded(42, burn);
                at::Tensor want = at::empty({n}, at::TensorOptions().dtype(c.dtype));
                at::Tensor got = at::empty({n}, at::TensorOptions().dtype(c.dtype));
                c.kernel(want, gk);
                c.fast(got, gf);
                ASSERT_TRUE(sameBytes(want, got));
                ASSERT_TRUE(sameBytes(gk.get_state(), gf.get_state()));
                // And the next draw from each generator is the same too.
                at::Tensor nextK = at::empty({37}), nextF = at::empty({37});
                nextK.normal_(0, 1, gk);
                nextF.normal_(0, 1, gf);
                ASSERT_TRUE(sameBytes(nextK, nextF));
            }
        }
    }
    expectEveryProbeMatched();
}

TEST(FastDraw, ShapedTensorsAndStridedOnes) {
    // A contiguous 3-D tensor is drawn like a flat one; a transposed view is left to the kernel.
    at::Generator gk = seeded(7, 0), gf = seeded(7, 0);
    at::Tensor want = at::empty({16, 32, 33}), got = at::empty({16, 32, 33});
    want.uniform_(-1, 1, gk);
    drawUniform(got, -1, 1, gf);
    EXPECT_TRUE(sameBytes(want, got));
    at::Tensor wantT = at::empty({128, 96}).t(), gotT = at::empty({128, 96}).t();
    wantT.normal_(0, 1, gk);
    drawNormal(gotT, 0, 1, gf);
    EXPECT_TRUE(sameBytes(wantT.contiguous(), gotT.contiguous()));
    EXPECT_TRUE(sameBytes(gk.get_state(), gf.get_state()));
}

// The parameters real tasks use are many: every layer's fan-in gives its own kaiming bound, and a
// probe chooses the variant per parameter. 300 parameters drawn at random, each checked on a
// tensor of up to 70000 elements, with the probe's choice and the kernel's draws compared.
TEST(FastDraw, ManyParametersMatchTheKernel) {
    std::mt19937_64 rng(2026);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::uniform_int_distribution<int64_t> size(4096, 70000);
    for (int i = 0; i < 300; ++i) {
        const int64_t n = size(rng);
        const int burn = static_cast<int>(unit(rng) * 700);
        at::Generator gk = seeded(static_cast<uint64_t>(i), burn),
                      gf = seeded(static_cast<uint64_t>(i), burn);
        at::Tensor want = at::empty({n}), got = at::empty({n});
        std::string what;
        if (i % 3 == 0) { // nn.Linear / nn.Conv*'s bound for a fan-in of 1 to 10^6
            const double fan = std::floor(std::pow(10.0, 6.0 * unit(rng))) + 1.0;
            const double bound = 1.0 / std::sqrt(fan);
            what = "uniform(+-" + std::to_string(bound) + ")";
            want.uniform_(-bound, bound, gk);
            drawUniform(got, -bound, bound, gf);
        } else if (i % 3 == 1) {
            const double from = 20.0 * unit(rng) - 10.0, to = from + 10.0 * unit(rng);
            what = "uniform(" + std::to_string(from) + ", " + std::to_string(to) + ")";
            want.uniform_(from, to, gk);
            drawUniform(got, from, to, gf);
        } else {
            const double mean = 6.0 * unit(rng) - 3.0, std = 4.0 * unit(rng);
            what = "normal(" + std::to_string(mean) + ", " + std::to_string(std) + ")";
            want.normal_(mean, std, gk);
            drawNormal(got, mean, std, gf);
        }
        SCOPED_TRACE(what + ", " + std::to_string(n) + " elements");
        ASSERT_TRUE(sameBytes(want, got));
        ASSERT_TRUE(sameBytes(gk.get_state(), gf.get_state()));
    }
    expectEveryProbeMatched();
}

// A generator whose state was set by hand (here 4 outputs before a regeneration, at the front of
// its words) is followed as PyTorch's engine follows it; parameters the kernel refuses are left
// to the kernel, which says why.
TEST(FastDraw, StatesSetByHandAndBadParameters) {
    at::mt19937 e(99);
    auto pod = e.data();
    pod.left_ = 5;
    pod.next_ = 0;
    e.set_data(pod);
    at::Generator gk = at::make_generator<at::CPUGeneratorImpl>(),
                  gf = at::make_generator<at::CPUGeneratorImpl>();
    gk.get<at::CPUGeneratorImpl>()->set_engine(e);
    gf.get<at::CPUGeneratorImpl>()->set_engine(e);
    at::Tensor want = at::empty({5000}), got = at::empty({5000});
    want.uniform_(-2, 3, gk);
    drawUniform(got, -2, 3, gf);
    EXPECT_TRUE(sameBytes(want, got));
    EXPECT_TRUE(sameBytes(gk.get_state(), gf.get_state()));
    at::Tensor x = at::empty({5000});
    EXPECT_THROW(drawUniform(x, 1, -1, gf), c10::Error);
    EXPECT_THROW(drawNormal(x, 0, -1, gf), c10::Error);
    EXPECT_THROW(drawRandom(x, 5, 5, gf), c10::Error);
    // A NaN mean gives what the kernel gives (NaNs, bit for bit), never a variant chosen for
    // another mean.
    at::Generator hk = seeded(3, 0), hf = seeded(3, 0);
    at::Tensor nk = at::empty({5000}), nf = at::empty({5000});
    nk.normal_(std::nan(""), 1, hk);
    drawNormal(nf, std::nan(""), 1, hf);
    EXPECT_TRUE(sameBytes(nk, nf));
}

TEST(FastDraw, EveryProbeFoundItsVariant) {
    for (const auto& c : cases()) {
        at::Generator g = seeded(1, 0);
        at::Tensor t = at::empty({fastDrawMinElements()}, at::TensorOptions().dtype(c.dtype));
        c.fast(t, g);
    }
    std::cout << "PyTorch CPU capability " << at::get_cpu_capability()
              << "; variants: " << fastDrawChoices() << "\n";
    expectEveryProbeMatched();
}
