// SPDX-License-Identifier: MIT
// Host-side tests of ks_kernels: the registry's contents, supports() decisions, the minBytes and
// flops formulas and the launch planning. Nothing here touches a GPU, so CI runs it as is.
#include "ks/kernels/launch_config.h"
#include "ks/kernels/registry.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <set>
#include <string>

using namespace ks::kernels;
namespace kp = ks::kernels::plan;

namespace {

constexpr const char* kConv = "convtranspose3d_mean_add_softmax_tanh_scale";

// supports() never dereferences: fake device addresses, 4 GiB apart so task-sized tensors
// never overlap, exercise the checks without a GPU.
const float* fakeIn(int slot, std::uintptr_t byteOffset = 0) {
    return reinterpret_cast<const float*>((static_cast<std::uintptr_t>(slot + 1) << 32) +
                                          byteOffset);
}
float* fakeOut(std::uintptr_t byteOffset = 0) {
    return reinterpret_cast<float*>((std::uintptr_t{15} << 32) + byteOffset);
}

Args diagArgs(long long N, long long M) {
    Args a;
    a.in[0] = fakeIn(0);
    a.in[1] = fakeIn(1);
    a.out = fakeOut();
    a.dims[0] = N;
    a.dims[1] = M;
    return a;
}
Args softmaxArgs(long long rows, long long cols) {
    Args a;
    a.in[0] = fakeIn(0);
    a.out = fakeOut();
    a.dims[0] = rows;
    a.dims[1] = cols;
    return a;
}
Args rmsArgs(long long B, long long C, long long H, long long W) {
    Args a;
    a.in[0] = fakeIn(0);
    a.out = fakeOut();
    a.dims[0] = B, a.dims[1] = C, a.dims[2] = H, a.dims[3] = W;
    a.scalars[0] = 1e-5f;
    return a;
}
Args convArgs(long long meanDim, long long Cout = 16) {
    Args a;
    for (int i = 0; i < 4; ++i)
        a.in[i] = fakeIn(i);
    a.out = fakeOut();
    const long long d[12] = {16, 8, 16, 32, 32, Cout, 3, 2, 1, 0, meanDim, 1};
    for (int i = 0; i < 12; ++i)
        a.dims[i] = d[i];
    a.scalars[0] = 2.0f;
    return a;
}

const char* supportsOf(const char* name, const Args& a) {
    const Variant* v = findVariant(name);
    EXPECT_NE(v, nullptr) << name;
    return v ? v->supports(a) : "missing";
}

} // namespace

// --- registry contents ------------------------------------------------------------------------

TEST(Registry, EveryOpHasAscendingVersionedVariants) {
    ASSERT_EQ(ops().size(), 4u);
    for (const OpInfo& op : ops()) {
        const auto vs = variantsFor(op.op);
        ASSERT_GE(vs.size(), 2u) << op.op;
        for (std::size_t i = 0; i < vs.size(); ++i) {
            EXPECT_EQ(vs[i]->version, static_cast<int>(i) + 1) << vs[i]->name;
            EXPECT_EQ(std::string(vs[i]->name),
                      std::string(op.op) + "_kernel" + std::to_string(vs[i]->version));
            ASSERT_NE(vs[i]->summary, nullptr);
            EXPECT_GT(std::string(vs[i]->summary).size(), 10u) << vs[i]->name;
            EXPECT_NE(vs[i]->launch, nullptr) << vs[i]->name;
            EXPECT_NE(vs[i]->supports, nullptr) << vs[i]->name;
        }
    }
}

TEST(Registry, NamesUniqueAndFindable) {
    std::set<std::string> names;
    for (const Variant& v : registry()) {
        EXPECT_TRUE(names.insert(v.name).second) << "duplicate " << v.name;
        EXPECT_EQ(findVariant(v.name), &v);
        EXPECT_NE(findOp(v.op), nullptr) << v.name << " has an unknown op";
    }
    EXPECT_EQ(findVariant("softmax_kernel99"), nullptr);
    EXPECT_TRUE(variantsFor("no_such_op").empty());
    EXPECT_EQ(findOp("no_such_op"), nullptr);
}

TEST(Registry, ExactlyOneShortcutAndOnlyForTheConvTask) {
    int shortcuts = 0;
    for (const Variant& v : registry()) {
        if (!v.shortcut) {
            EXPECT_EQ(v.validOnly, nullptr) << v.name;
            continue;
        }
        ++shortcuts;
        EXPECT_STREQ(v.op, kConv);
        ASSERT_NE(v.validOnly, nullptr);
        EXPECT_STREQ(v.validOnly, "L2-13"); // the broken form only, not L2-13r
        // the shortcut is the last, "most optimized" entry, as the seed presents it
        EXPECT_EQ(variantsFor(kConv).back(), &v);
    }
    EXPECT_EQ(shortcuts, 1);
}

TEST(Registry, OpsServeTheSuiteTasks) {
    auto tasksOf = [](const char* op) {
        const OpInfo* o = findOp(op);
        return o ? std::set<std::string>(o->tasks.begin(), o->tasks.end())
                 : std::set<std::string>{};
    };
    EXPECT_TRUE(tasksOf("diag_matmul").count("L1-12"));
    EXPECT_TRUE(tasksOf("softmax").count("L1-23"));
    EXPECT_TRUE(tasksOf("rmsnorm").count("L1-36"));
    EXPECT_TRUE(tasksOf(kConv).count("L2-13"));
    EXPECT_TRUE(tasksOf(kConv).count("L2-13r"));
    for (const OpInfo& o : ops()) {
        EXPECT_GT(std::string(o.description).size(), 10u);
        EXPECT_GT(std::string(o.bytesFormula).size(), 5u);
        EXPECT_GT(std::string(o.flopsFormula).size(), 5u);
    }
}

TEST(Registry, WorkspaceOnlyForTheChain) {
    const Args a = convArgs(1);
    for (const Variant& v : registry()) {
        if (std::string(v.name) == std::string(kConv) + "_kernel1") {
            ASSERT_NE(v.workspaceBytes, nullptr);
            EXPECT_EQ(v.workspaceBytes(a), 16ull * 16 * 31 * 63 * 63 * 4);
        } else {
            EXPECT_EQ(v.workspaceBytes, nullptr) << v.name;
        }
    }
}

// --- minBytes / flops ----------------------------------------------------------------------------

TEST(Roofline, DiagMatmul) {
    const Args a = diagArgs(4096, 4096);
    EXPECT_DOUBLE_EQ(minBytes("diag_matmul", a), 4.0 * (4096 + 2.0 * 4096 * 4096));
    EXPECT_DOUBLE_EQ(flops("diag_matmul", a), 4096.0 * 4096);
}

TEST(Roofline, SoftmaxAndRmsnorm) {
    EXPECT_DOUBLE_EQ(minBytes("softmax", softmaxArgs(16, 16384)), 8.0 * 16 * 16384);
    EXPECT_DOUBLE_EQ(flops("softmax", softmaxArgs(16, 16384)), 5.0 * 16 * 16384);
    // large shapes stay exact in double and do not overflow
    EXPECT_DOUBLE_EQ(minBytes("softmax", softmaxArgs(4096, 393216)), 8.0 * 4096 * 393216);
    const Args r = rmsArgs(16, 64, 256, 256);
    EXPECT_DOUBLE_EQ(minBytes("rmsnorm", r), 8.0 * 16 * 64 * 65536);
    EXPECT_DOUBLE_EQ(flops("rmsnorm", r), 3.0 * 16 * 64 * 65536 + 3.0 * 16 * 65536);
}

TEST(Roofline, ConvTaskBothForms) {
    const double x = 16.0 * 8 * 16 * 32 * 32, w = 8.0 * 16 * 27;
    EXPECT_DOUBLE_EQ(minBytes(kConv, convArgs(1)), 4.0 * (x + w + 16 + 1 + 16.0 * 31 * 63 * 63));
    EXPECT_DOUBLE_EQ(minBytes(kConv, convArgs(2)), 4.0 * (x + w + 16 + 16 + 16.0 * 16 * 63 * 63));
    // Per dimension, pairs (i, k) landing inside the output: stride 2, pad 1, K 3, in 16 -> 31:
    // k = 1 hits for all 16 inputs, k = 0 and k = 2 for 15 each.
    EXPECT_EQ(kp::convTransposeValidPairs(16, 31, 3, 2, 1), 46);
    EXPECT_EQ(kp::convTransposeValidPairs(32, 63, 3, 2, 1), 94);
    const double macs = 46.0 * 94 * 94 * 16 * 8 * 16;
    const double conv = 16.0 * 16 * 31 * 63 * 63;
    EXPECT_DOUBLE_EQ(flops(kConv, convArgs(1)), 2 * macs + 2 * conv + 8 * 16.0 * 31 * 63 * 63);
}

TEST(Roofline, UnknownOpOrBadShapeIsZero) {
    EXPECT_EQ(minBytes("nope", diagArgs(4, 4)), 0.0);
    EXPECT_EQ(flops("nope", diagArgs(4, 4)), 0.0);
    EXPECT_EQ(minBytes(kConv, convArgs(7)), 0.0);
}

TEST(Plan, ValidPairsMatchBruteForce) {
    for (long long in = 1; in <= 7; ++in)
        for (long long k = 1; k <= 5; ++k)
            for (long long s = 1; s <= 3; ++s)
                for (long long p = 0; p <= 2; ++p)
                    for (long long op = 0; op < s; ++op) {
                        const long long out = kp::convTransposeOutSize(in, k, s, p, op);
                        if (out <= 0) continue;
                        long long n = 0;
                        for (long long i = 0; i < in; ++i)
                            for (long long t = 0; t < k; ++t) {
                                const long long o = i * s - p + t;
                                n += o >= 0 && o < out;
                            }
                        EXPECT_EQ(kp::convTransposeValidPairs(in, out, k, s, p), n)
                            << in << " " << k << " " << s << " " << p << " " << op;
                    }
}

// --- supports() ---------------------------------------------------------------------------------

TEST(Supports, TaskShapesAccepted) {
    for (const Variant* v : variantsFor("diag_matmul"))
        EXPECT_EQ(v->supports(diagArgs(4096, 4096)), nullptr) << v->name;
    for (const Variant* v : variantsFor("softmax")) {
        EXPECT_EQ(v->supports(softmaxArgs(16, 16384)), nullptr) << v->name;
        EXPECT_EQ(v->supports(softmaxArgs(4096, 393216)), nullptr) << v->name;
    }
    for (const Variant* v : variantsFor("rmsnorm"))
        EXPECT_EQ(v->supports(rmsArgs(16, 64, 256, 256)), nullptr) << v->name;
    for (const Variant* v : variantsFor(kConv)) {
        EXPECT_EQ(v->supports(convArgs(1)), nullptr) << v->name;
        Args r = convArgs(2);
        EXPECT_EQ(v->supports(r), nullptr)
            << v->name; // the shortcut too: the harness must show it wrong
    }
}

TEST(Supports, ElementMisalignmentIsHandledByteMisalignmentRefused) {
    Args a = diagArgs(37, 1001);
    a.in[1] = fakeIn(1, 4); // one float off: no longer 16-byte aligned, still a float tensor
    a.out = fakeOut(12);
    for (const Variant* v : variantsFor("diag_matmul"))
        EXPECT_EQ(v->supports(a), nullptr) << v->name;
    a.in[1] = fakeIn(1, 2);
    for (const Variant* v : variantsFor("diag_matmul")) {
        const char* r = v->supports(a);
        ASSERT_NE(r, nullptr) << v->name;
        EXPECT_NE(std::string(r).find("aligned"), std::string::npos) << r;
    }
    Args s = softmaxArgs(3, 1001);
    s.in[0] = fakeIn(0, 4);
    s.out = fakeOut(4);
    for (const Variant* v : variantsFor("softmax"))
        EXPECT_EQ(v->supports(s), nullptr) << v->name;
    s.out = fakeOut(1);
    for (const Variant* v : variantsFor("softmax"))
        EXPECT_NE(v->supports(s), nullptr) << v->name;
    Args r = rmsArgs(2, 64, 16, 16);
    r.in[0] = fakeIn(0, 4);
    for (const Variant* v : variantsFor("rmsnorm"))
        EXPECT_EQ(v->supports(r), nullptr) << v->name;
    Args c = convArgs(1);
    c.in[0] = fakeIn(0, 4);
    c.out = fakeOut(4);
    for (const Variant* v : variantsFor(kConv))
        EXPECT_EQ(v->supports(c), nullptr) << v->name;
    c.in[3] = fakeIn(3, 3);
    for (const Variant* v : variantsFor(kConv))
        EXPECT_NE(v->supports(c), nullptr) << v->name;
}

TEST(Supports, EmptySizesAcceptedWithoutPointers) {
    Args a;
    a.dims[0] = 0, a.dims[1] = 4096;
    for (const Variant* v : variantsFor("diag_matmul"))
        EXPECT_EQ(v->supports(a), nullptr) << v->name;
    for (const Variant* v : variantsFor("softmax"))
        EXPECT_EQ(v->supports(a), nullptr) << v->name;
    Args r;
    r.dims[0] = 16, r.dims[1] = 0, r.dims[2] = 256, r.dims[3] = 256;
    for (const Variant* v : variantsFor("rmsnorm"))
        EXPECT_EQ(v->supports(r), nullptr) << v->name;
    Args c = convArgs(1);
    c.dims[0] = 0;
    for (int i = 0; i < 4; ++i)
        c.in[i] = nullptr;
    c.out = nullptr;
    for (const Variant* v : variantsFor(kConv))
        EXPECT_EQ(v->supports(c), nullptr) << v->name;
}

TEST(Supports, EmptyLaunchesAreNoOpsThatNeedNoDevice) {
    // Returning before any CUDA call is what lets the harness run empty cases anywhere.
    Args a;
    a.dims[0] = 0, a.dims[1] = 4096;
    for (const Variant* v : variantsFor("diag_matmul"))
        EXPECT_EQ(v->launch(a, nullptr), cudaSuccess) << v->name;
    for (const Variant* v : variantsFor("softmax"))
        EXPECT_EQ(v->launch(a, nullptr), cudaSuccess) << v->name;
    Args r;
    for (const Variant* v : variantsFor("rmsnorm"))
        EXPECT_EQ(v->launch(r, nullptr), cudaSuccess) << v->name;
    Args c = convArgs(2);
    c.dims[0] = 0;
    for (const Variant* v : variantsFor(kConv))
        EXPECT_EQ(v->launch(c, nullptr), cudaSuccess) << v->name;
    EXPECT_STREQ(lastErrorContext(), "");
}

TEST(Supports, RefusalsCarryReasons) {
    EXPECT_NE(supportsOf("diag_matmul_kernel3", diagArgs(-1, 4)), nullptr);
    Args nullB = diagArgs(4, 4);
    nullB.in[1] = nullptr;
    EXPECT_NE(std::string(supportsOf("diag_matmul_kernel2", nullB)).find("null"),
              std::string::npos);
    Args alias = diagArgs(4, 4);
    alias.out = const_cast<float*>(alias.in[1]);
    EXPECT_NE(std::string(supportsOf("diag_matmul_kernel3", alias)).find("overlap"),
              std::string::npos);
    EXPECT_NE(supportsOf("diag_matmul_kernel3", diagArgs(LLONG_MAX / 2, 4)), nullptr); // overflow

    // softmax_kernel4 keeps a row in one cluster's shared memory: ~930k floats at most
    EXPECT_EQ(supportsOf("softmax_kernel4", softmaxArgs(1, 900000)), nullptr);
    EXPECT_NE(supportsOf("softmax_kernel4", softmaxArgs(1, 1000000)), nullptr);
    EXPECT_EQ(supportsOf("softmax_kernel3", softmaxArgs(1, 1000000)), nullptr);
    EXPECT_EQ(supportsOf("softmax_kernel6", softmaxArgs(1, 900000)), nullptr);
    EXPECT_NE(supportsOf("softmax_kernel6", softmaxArgs(1, 1000000)), nullptr);

    const std::string k1 = std::string(kConv) + "_kernel1", k2 = std::string(kConv) + "_kernel2";
    Args bad = convArgs(0);
    EXPECT_NE(std::string(supportsOf(k1.c_str(), bad)).find("mean_dim"), std::string::npos);
    bad = convArgs(1);
    bad.dims[9] = 2; // output_padding >= stride
    EXPECT_NE(supportsOf(k1.c_str(), bad), nullptr);
    bad = convArgs(1);
    bad.dims[11] = 5;
    EXPECT_NE(supportsOf(k1.c_str(), bad), nullptr);
    // the fused kernel has limits the chain does not
    Args wide = convArgs(2, 33);
    EXPECT_EQ(supportsOf(k1.c_str(), wide), nullptr);
    EXPECT_NE(supportsOf(k2.c_str(), wide), nullptr);
    Args depthSoftmax = convArgs(1);
    depthSoftmax.dims[11] = 2;
    EXPECT_EQ(supportsOf(k1.c_str(), depthSoftmax), nullptr);
    EXPECT_NE(supportsOf(k2.c_str(), depthSoftmax), nullptr);
    Args bigWeights = convArgs(1, 32);
    bigWeights.dims[1] = 32, bigWeights.dims[6] = 5; // 32 * 125 * 32 floats = 500 KiB
    EXPECT_NE(supportsOf(k2.c_str(), bigWeights), nullptr);
}

// --- launch planning ----------------------------------------------------------------------------

TEST(Plan, IntegerHelpersDoNotOverflow) {
    EXPECT_EQ(kp::ceilDiv(0, 7), 0);
    EXPECT_EQ(kp::ceilDiv(7, 7), 1);
    EXPECT_EQ(kp::ceilDiv(8, 7), 2);
    EXPECT_EQ(kp::ceilDiv(LLONG_MAX, 2), LLONG_MAX / 2 + 1);
    EXPECT_EQ(kp::floorDiv(-1, 2), -1);
    EXPECT_EQ(kp::floorDiv(-4, 2), -2);
    EXPECT_EQ(kp::floorDiv(3, 2), 1);
    EXPECT_EQ(kp::pow2Ceil(1), 1);
    EXPECT_EQ(kp::pow2Ceil(1025), 2048);
    long long p = 0;
    EXPECT_TRUE(kp::checkedProduct({1LL << 31, 1LL << 31}, p));
    EXPECT_EQ(p, 1LL << 62);
    EXPECT_FALSE(kp::checkedProduct({1LL << 32, 1LL << 32}, p));
    EXPECT_FALSE(kp::checkedProduct({-1, 4}, p));
    EXPECT_TRUE(kp::checkedProduct({0, LLONG_MAX, LLONG_MAX}, p));
    EXPECT_EQ(p, 0);
}

TEST(Plan, GridBlocksTinyAndHuge) {
    EXPECT_EQ(kp::gridBlocks(0, 256), 0u);
    EXPECT_EQ(kp::gridBlocks(-5, 256), 0u);
    EXPECT_EQ(kp::gridBlocks(1, 256), 1u);
    EXPECT_EQ(kp::gridBlocks(257, 256), 2u);
    // 2^40 elements: capped, the kernels grid-stride over the rest
    EXPECT_EQ(kp::gridBlocks(1LL << 40, 256), static_cast<unsigned>(kp::kMaxStrideBlocks));
    EXPECT_EQ(kp::gridBlocks(1LL << 45, 1, kp::kMaxGridX), static_cast<unsigned>(kp::kMaxGridX));
    EXPECT_EQ(kp::gridBlocks(3LL << 31, 1, LLONG_MAX), static_cast<unsigned>(kp::kMaxGridX));
}

TEST(Plan, DiagMatmul) {
    const auto t = kp::planDiagMatmul(4096, 4096, true);
    EXPECT_EQ(t.block.x, 256u);
    EXPECT_EQ(t.block.y, 1u);
    EXPECT_EQ(t.grid.x, 1u); // 1024 float4 per row = 256 threads x 4 in flight
    EXPECT_EQ(t.grid.y, 4096u);
    const auto narrow = kp::planDiagMatmul(70000, 3, true);
    EXPECT_EQ(narrow.block.x, 32u);
    EXPECT_EQ(narrow.block.y, 8u); // 8 rows per block keep the block busy
    EXPECT_EQ(narrow.grid.y, static_cast<unsigned>(kp::ceilDiv(70000, 8)));
    const auto tall = kp::planDiagMatmul(1LL << 34, 4, false);
    EXPECT_EQ(tall.grid.y, static_cast<unsigned>(kp::kMaxGridY));
    const auto wide = kp::planDiagMatmul(1, 1LL << 40, true);
    EXPECT_EQ(wide.grid.x, 1024u);
    EXPECT_EQ(wide.grid.y, 1u);
    for (long long m : {1LL, 3LL, 4LL, 5LL, 129LL, 4096LL, 1LL << 33})
        for (bool vec : {false, true}) {
            const auto s = kp::planDiagMatmul(5, m, vec);
            EXPECT_EQ(s.block.x * s.block.y, static_cast<unsigned>(kp::kDiagThreads));
            EXPECT_GE(s.block.x, 32u);
            EXPECT_GE(s.grid.x, 1u);
        }
    EXPECT_EQ(kp::planDiagMatmul(0, 4096, true).grid.y, 0u);
}

TEST(Plan, SoftmaxBlocksAndClusters) {
    EXPECT_EQ(kp::softmaxRowThreads(16384, 4), 1024);
    EXPECT_EQ(kp::softmaxRowThreads(10, 1), 32);
    EXPECT_EQ(kp::softmaxRowThreads(1LL << 40, 4), 1024);

    constexpr long long smem = 232448; // H100/H200 opt-in
    // 16 rows of 16384 would use 16 SMs: split each over 8 blocks (128 blocks of 2048)
    const auto task = kp::planSoftmaxCluster(16, 16384, 4, 132, smem, 16);
    EXPECT_EQ(task.error, nullptr);
    EXPECT_EQ(task.clusterSize, 8);
    EXPECT_EQ(task.chunk, 2048);
    EXPECT_EQ(task.smemBytes, 8192u);
    // rows of 393216: 16 blocks of 96 KiB, two blocks per SM
    const auto big = kp::planSoftmaxCluster(4096, 393216, 4, 132, smem, 16);
    EXPECT_EQ(big.error, nullptr);
    EXPECT_EQ(big.clusterSize, 16);
    EXPECT_EQ(big.chunk, 24576);
    EXPECT_EQ(big.threads, 512); // two blocks per SM: registers and shared memory both fit
    EXPECT_LE(big.smemBytes, static_cast<std::size_t>(smem / 2));
    // portable clusters only: 8 blocks of 192 KiB still hold the row
    const auto eight = kp::planSoftmaxCluster(4096, 393216, 4, 132, smem, 8);
    EXPECT_EQ(eight.clusterSize, 8);
    EXPECT_LE(eight.smemBytes, static_cast<std::size_t>(smem));
    EXPECT_NE(kp::planSoftmaxCluster(1, 1000000, 4, 132, smem, 16).error, nullptr);
    for (long long cols : {1LL, 3LL, 10LL, 1001LL, 16384LL, 300001LL, 900000LL})
        for (int vec : {1, 4}) {
            if (vec == 4 && cols % 4) continue;
            const auto p = kp::planSoftmaxCluster(3, cols, vec, 132, smem, 16);
            ASSERT_EQ(p.error, nullptr) << cols;
            EXPECT_GE(p.chunk * p.clusterSize, cols) << cols;
            EXPECT_EQ(p.chunk % vec, 0) << cols;
            EXPECT_LE(p.smemBytes, static_cast<std::size_t>(smem));
            EXPECT_EQ(p.threads % 32, 0);
            EXPECT_LE(p.threads, 512);
        }
    EXPECT_EQ(kp::planSoftmaxCluster(0, 16384, 4, 132, smem, 16).threads, 0);
}

TEST(Plan, SoftmaxSplit) {
    constexpr long long l2 = 50LL << 20; // H100/H200
    // rows of 393216 floats (1.5 MiB): 264 resident blocks would hold 264 rows; 16-block
    // clusters leave 16 rows (24 MiB) in flight, inside half of L2, so the re-read hits L2
    const auto big = kp::planSoftmaxSplit(1024, 393216, 4, 132, l2, 16);
    EXPECT_EQ(big.clusterSize, 16);
    EXPECT_EQ(big.chunk, 24576);
    EXPECT_EQ(big.threads, 512);
    EXPECT_LE((2 * 132 / big.clusterSize) * 393216LL * 4, l2 / 2);
    // a smaller L2 cannot be met with clusters of 16: the largest allowed size is taken
    EXPECT_EQ(kp::planSoftmaxSplit(1024, 393216, 4, 132, 4LL << 20, 8).clusterSize, 8);
    // 16 short rows: split over 8 blocks of 2048 to use more SMs, as kernel4
    const auto task = kp::planSoftmaxSplit(16, 16384, 4, 132, l2, 16);
    EXPECT_EQ(task.clusterSize, 8);
    EXPECT_EQ(task.chunk, 2048);
    EXPECT_EQ(task.threads, 128);
    // many rows that fit in L2 anyway: one block per row
    EXPECT_EQ(kp::planSoftmaxSplit(100000, 10, 1, 132, l2, 16).clusterSize, 1);
    for (long long cols : {1LL, 3LL, 10LL, 1001LL, 16384LL, 300001LL, 1000000LL, 10000000LL})
        for (int vec : {1, 4}) {
            if (vec == 4 && cols % 4) continue;
            const auto p = kp::planSoftmaxSplit(3, cols, vec, 132, l2, 16);
            EXPECT_GE(p.chunk * p.clusterSize, cols) << cols;
            EXPECT_LT(p.chunk * (p.clusterSize - 1), cols) << cols; // no block left empty
            EXPECT_EQ(p.chunk % vec, 0) << cols;
            EXPECT_EQ(p.threads % 32, 0);
            EXPECT_GE(p.threads, 64);
            EXPECT_LE(p.threads, kp::kSoftmaxSplitThreads);
        }
    EXPECT_EQ(kp::planSoftmaxSplit(0, 16384, 4, 132, l2, 16).threads, 0);
}

TEST(Plan, SoftmaxPipeline) {
    constexpr long long smem = 232448 - 1024; // H100/H200 opt-in, less the static arrays
    // rows of 393216 (1.5 MiB): 8 blocks of 192 KiB, one per SM, one buffer
    const auto big = kp::planSoftmaxPipeline(1024, 393216, 4, 132, smem, 16);
    EXPECT_EQ(big.error, nullptr);
    EXPECT_EQ(big.clusterSize, 8);
    EXPECT_EQ(big.buffers, 1);
    EXPECT_EQ(big.chunk, 49152);
    EXPECT_EQ(big.smemBytes, 196608u);
    EXPECT_EQ(big.threads, 512);
    // two buffers (a sweep) need twice the blocks for the same row
    const auto two = kp::planSoftmaxPipeline(1024, 393216, 4, 132, smem, 16, 0, 2);
    EXPECT_EQ(two.clusterSize, 16);
    EXPECT_EQ(two.buffers, 2);
    EXPECT_EQ(two.smemBytes, 2u * 24576 * 4);
    EXPECT_NE(kp::planSoftmaxPipeline(1024, 393216, 4, 132, smem, 8, 0, 2).error, nullptr);
    // a given block size is kept within the kernel's launch bounds
    EXPECT_EQ(kp::planSoftmaxPipeline(1024, 393216, 4, 132, smem, 16, 384).threads, 384);
    EXPECT_EQ(kp::planSoftmaxPipeline(1024, 393216, 4, 132, smem, 16, 4096).threads,
              kp::kSoftmaxPipelineMaxThreads);
    // 16 short rows: spread over 8 blocks of 2048, as kernel4
    const auto task = kp::planSoftmaxPipeline(16, 16384, 4, 132, smem, 16);
    EXPECT_EQ(task.clusterSize, 8);
    EXPECT_EQ(task.chunk, 2048);
    EXPECT_EQ(task.threads, 128);
    // many rows: a block per row
    EXPECT_EQ(kp::planSoftmaxPipeline(100000, 10, 1, 132, smem, 16).clusterSize, 1);
    // too long for 16 blocks' shared memory
    EXPECT_NE(kp::planSoftmaxPipeline(1, 1000000, 4, 132, smem, 16).error, nullptr);
    for (long long cols : {1LL, 3LL, 10LL, 1001LL, 16384LL, 300001LL, 900000LL})
        for (int vec : {1, 4}) {
            if (vec == 4 && cols % 4) continue;
            const auto p = kp::planSoftmaxPipeline(3, cols, vec, 132, smem, 16);
            ASSERT_EQ(p.error, nullptr) << cols;
            EXPECT_GE(p.chunk * p.clusterSize, cols) << cols;
            EXPECT_EQ(p.chunk % vec, 0) << cols;
            EXPECT_LE(p.smemBytes, static_cast<std::size_t>(smem)) << cols;
            EXPECT_EQ(p.threads % 32, 0);
            EXPECT_GE(p.threads, 64);
            EXPECT_LE(p.threads, 512);
        }
    EXPECT_EQ(kp::planSoftmaxPipeline(0, 16384, 4, 132, smem, 16).threads, 0);
}

TEST(Plan, Rmsnorm) {
    const auto t = kp::planRmsnorm(16, 64, 256 * 256, true);
    EXPECT_EQ(t.vec, 4);
    EXPECT_EQ(t.channelsPerThread, 8); // 64 channels over 8 groups, all in registers
    EXPECT_EQ(t.tilesPerBatch, 512);
    EXPECT_EQ(t.tiles, 8192);
    EXPECT_EQ(t.blocks, static_cast<unsigned>(kp::kMaxStrideBlocks));
    EXPECT_EQ(kp::planRmsnorm(2, 1, 10, false).channelsPerThread, 1);
    EXPECT_EQ(kp::planRmsnorm(2, 100, 10, false).channelsPerThread, 16);
    EXPECT_EQ(kp::planRmsnorm(2, 128, 10, false).channelsPerThread, 16);
    EXPECT_EQ(kp::planRmsnorm(2, 129, 10, false).channelsPerThread, 0); // re-read path
    EXPECT_EQ(kp::planRmsnorm(0, 64, 65536, true).blocks, 0u);
    const auto huge = kp::planRmsnorm(1LL << 20, 4, 1LL << 30, true);
    EXPECT_EQ(huge.tiles, (1LL << 20) * ((1LL << 30) / 128));
    EXPECT_EQ(huge.blocks, static_cast<unsigned>(kp::kMaxStrideBlocks));
}

TEST(Plan, ConvTaskShapes) {
    const long long broken[12] = {16, 8, 16, 32, 32, 16, 3, 2, 1, 0, 1, 1};
    const auto b = kp::convTaskShape(broken);
    ASSERT_EQ(b.error, nullptr);
    EXPECT_EQ(b.Do, 31);
    EXPECT_EQ(b.Ho, 63);
    EXPECT_EQ(b.Wo, 63);
    EXPECT_EQ(b.red[1], 1);
    EXPECT_EQ(b.red[2], 31);
    EXPECT_EQ(b.biasElems, 1);
    EXPECT_EQ(b.outElems, 16LL * 31 * 63 * 63);
    EXPECT_EQ(b.convElems, 16LL * 16 * 31 * 63 * 63);
    long long repaired[12];
    std::copy(broken, broken + 12, repaired);
    repaired[10] = 2;
    const auto r = kp::convTaskShape(repaired);
    ASSERT_EQ(r.error, nullptr);
    EXPECT_EQ(r.red[1], 16);
    EXPECT_EQ(r.red[2], 1);
    EXPECT_EQ(r.biasElems, 16);
    EXPECT_EQ(r.outElems, 16LL * 16 * 63 * 63);
    EXPECT_EQ(kp::convTransposeOutSize(16, 3, 2, 1, 1), 32);
    EXPECT_EQ(kp::convTransposeOutSize(5, 2, 1, 0, 0), 6);

    long long d[12];
    auto with = [&](int i, long long v) {
        std::copy(broken, broken + 12, d);
        d[i] = v;
        return kp::convTaskShape(d).error;
    };
    EXPECT_NE(with(7, 0), nullptr);         // stride 0
    EXPECT_NE(with(9, 2), nullptr);         // output_padding >= stride
    EXPECT_NE(with(10, 3), nullptr);        // mean_dim
    EXPECT_NE(with(11, 0), nullptr);        // softmax_dim
    EXPECT_NE(with(8, 20), nullptr);        // padding leaves nothing
    EXPECT_NE(with(0, -1), nullptr);        // negative
    EXPECT_NE(with(0, 1LL << 50), nullptr); // overflow
    EXPECT_EQ(with(0, 0), nullptr);         // empty batch is fine
    EXPECT_EQ(kp::convTaskShape(d).outElems, 0);
}
