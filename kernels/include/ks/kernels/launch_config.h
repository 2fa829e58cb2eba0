// SPDX-License-Identifier: MIT
// Host-side launch planning shared by the launchers and the CPU-only tests: grid sizes, tiling
// decisions and output shapes are pure functions here, so a machine without a GPU can check
// them (huge and tiny problems, no int overflow past 2^31 elements). Plain C++, no CUDA syntax.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace ks::kernels::plan {

inline constexpr long long kMaxGridX = 2147483647LL; // CUDA's gridDim.x limit
inline constexpr long long kMaxGridY = 65535LL;      // gridDim.y / gridDim.z limit
// Grid-stride kernels stop growing the grid here: a few waves over 132 SMs keep HBM busy, and
// more blocks only add scheduling overhead.
inline constexpr long long kMaxStrideBlocks = 132LL * 32;

// ceil(a / b) for a >= 0, b > 0, without the (a + b - 1) overflow near LLONG_MAX.
constexpr long long ceilDiv(long long a, long long b) {
    return a <= 0 ? 0 : a / b + (a % b != 0 ? 1 : 0);
}
// floor(a / b) for any a and b > 0 (C++ division truncates towards zero).
constexpr long long floorDiv(long long a, long long b) {
    return a / b - ((a % b != 0 && a < 0) ? 1 : 0);
}
constexpr long long pow2Ceil(long long v) {
    long long p = 1;
    while (p < v && p < (1LL << 62))
        p <<= 1;
    return p;
}
constexpr long long clampLL(long long v, long long lo, long long hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}
constexpr long long roundUp(long long v, long long m) {
    return ceilDiv(v, m) * m;
}

// Product of sizes; false if any is negative or the product leaves int64.
constexpr bool checkedProduct(std::initializer_list<long long> xs, long long& out) {
    long long p = 1;
    for (long long x : xs) {
        if (x < 0) return false;
        if (x != 0 && p > std::numeric_limits<long long>::max() / x) return false;
        p *= x;
    }
    out = p;
    return true;
}

// Blocks for a grid-stride loop over n items with perBlock items per block per iteration:
// enough to cover n once, capped at maxBlocks (the kernels loop over the rest). 0 if n <= 0,
// so callers can skip the launch.
constexpr unsigned gridBlocks(long long n, long long perBlock,
                              long long maxBlocks = kMaxStrideBlocks) {
    if (n <= 0 || perBlock <= 0) return 0;
    const long long cap = maxBlocks < kMaxGridX ? maxBlocks : kMaxGridX;
    return static_cast<unsigned>(clampLL(ceilDiv(n, perBlock), 1, cap));
}

inline bool aligned(const void* p, std::size_t bytes) {
    return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct LaunchShape {
    Dim3 grid, block;
};

// --- diag_matmul_kernel3 -------------------------------------------------------------------
inline constexpr int kDiagThreads = 256; // per block
inline constexpr int kDiagUnroll = 4;    // vectors (or scalars) in flight per thread

// 2-D blocks: x threads walk a row's vectors (float4, or floats on the scalar path), y threads
// take rows, so narrow matrices still fill a block. Rows beyond gridDim.y * blockDim.y and
// columns beyond one sweep are covered by grid-stride loops.
constexpr LaunchShape planDiagMatmul(long long N, long long M, bool vec4) {
    LaunchShape s{};
    if (N <= 0 || M <= 0) {
        s.grid = {0, 0, 1};
        s.block = {kDiagThreads, 1, 1};
        return s;
    }
    const long long units = vec4 ? ceilDiv(M, 4) : M; // per row
    const long long tx = clampLL(pow2Ceil(ceilDiv(units, kDiagUnroll)), 32, kDiagThreads);
    const long long ty = kDiagThreads / tx;
    s.block = {static_cast<unsigned>(tx), static_cast<unsigned>(ty), 1};
    const long long gx = clampLL(ceilDiv(units, tx * kDiagUnroll), 1, 1024);
    const long long gy = clampLL(ceilDiv(N, ty), 1, kMaxGridY);
    s.grid = {static_cast<unsigned>(gx), static_cast<unsigned>(gy), 1};
    return s;
}

// --- softmax --------------------------------------------------------------------------------
// kernel3: one block per row; about four vectors per thread on the first sweep.
constexpr int softmaxRowThreads(long long cols, int vec) {
    return static_cast<int>(clampLL(pow2Ceil(ceilDiv(ceilDiv(cols, vec), 4)), 32, 1024));
}

// kernel4: a row is split over a thread-block cluster; each block keeps its chunk in shared
// memory, so the row is read from HBM once however long it is.
struct SoftmaxClusterPlan {
    int clusterSize = 1;
    long long chunk = 0; // elements per block (multiple of vec)
    int threads = 0;
    std::size_t smemBytes = 0;
    const char* error = nullptr; // set when no cluster can hold a row
};
inline constexpr long long kSoftmaxMinChunk = 2048; // below this a block is mostly sync overhead

constexpr SoftmaxClusterPlan planSoftmaxCluster(long long rows, long long cols, int vec,
                                                int smCount, long long maxSmemBytes,
                                                int maxCluster) {
    SoftmaxClusterPlan p{};
    if (rows <= 0 || cols <= 0) return p;
    auto chunkFor = [&](long long cs) { return roundUp(ceilDiv(cols, cs), vec); };
    auto bytes = [&](long long cs) { return chunkFor(cs) * 4; };
    long long cs = 1;
    // Fit, preferring two blocks per SM (half the opt-in shared memory each) so one block's
    // load phase overlaps the other's write phase.
    while (cs < maxCluster && bytes(cs) > maxSmemBytes / 2)
        cs *= 2;
    if (bytes(cs) > maxSmemBytes) {
        p.error = "row too long for the shared memory of one thread-block cluster";
        return p;
    }
    // Spread short, few rows over more SMs (16 rows of 16384 would use 16 of 132 SMs).
    while (cs < maxCluster && rows * cs < 2LL * smCount && chunkFor(cs * 2) >= kSoftmaxMinChunk)
        cs *= 2;
    p.clusterSize = static_cast<int>(cs);
    p.chunk = chunkFor(cs);
    // <= 512 threads so two blocks (and their registers) fit on an SM: one block's loads then
    // overlap the other's barrier and write pass
    p.threads = static_cast<int>(clampLL(pow2Ceil(ceilDiv(p.chunk / vec, 4)), 64, 512));
    p.smemBytes = static_cast<std::size_t>(bytes(cs));
    return p;
}

// kernel5: a row split over a cluster without staging: each block streams its chunk from HBM
// once (online max/sum), the partials meet through DSMEM, and the write pass re-reads the chunk
// while it is still in L2. That holds only if the rows in flight fit in L2, so the cluster
// grows until (resident blocks / cluster) rows take at most half of it.
struct SoftmaxSplitPlan {
    int clusterSize = 1;
    long long chunk = 0; // elements per block (multiple of vec)
    int threads = 0;
};
inline constexpr int kSoftmaxSplitThreads = 512; // __launch_bounds__(512, 2) in the kernel
constexpr SoftmaxSplitPlan planSoftmaxSplit(long long rows, long long cols, int vec, int smCount,
                                            long long l2Bytes, int maxCluster) {
    SoftmaxSplitPlan p{};
    if (rows <= 0 || cols <= 0) return p;
    auto chunkFor = [&](long long cs) { return roundUp(ceilDiv(cols, cs), vec); };
    const long long resident = 2LL * smCount;
    const long long rowBytes = cols * 4;
    long long cs = 1;
    while (cs < maxCluster && (resident / cs) * rowBytes > l2Bytes / 2)
        cs *= 2;
    while (cs < maxCluster && rows * cs < resident && chunkFor(cs * 2) >= kSoftmaxMinChunk)
        cs *= 2;
    p.clusterSize = static_cast<int>(cs);
    p.chunk = chunkFor(cs);
    p.threads = static_cast<int>(
        clampLL(pow2Ceil(ceilDiv(p.chunk / vec, 4)), 64, kSoftmaxSplitThreads));
    return p;
}

// kernel6: a row split over a cluster and held in shared memory as in kernel4, but the grid is
// persistent (one cluster per co-resident slot, rows strided over the clusters) and the next
// row's loads are in flight while the current row is reduced and written, so HBM reads and
// writes overlap and a row costs one cluster barrier. One buffer per block (the default): the
// write pass reloads each slot with the next row right after reading it (8 blocks of 192 KiB
// for rows of 393216). Two buffers: the next row streams into the second from the start of
// the current row, which needs twice the blocks (16 of 96 KiB x 2) — measured slower on the
// H200 (7 co-resident 16-block clusters, 1.45 ms against 0.96 ms at 1024 x 393216), so only a
// sweep asks for it. Few short rows are spread over more SMs, as in kernel4.
struct SoftmaxPipelinePlan {
    int clusterSize = 1;
    int buffers = 1;     // row buffers per block: 2 = double-buffered
    long long chunk = 0; // elements per block (multiple of vec)
    int threads = 0;
    std::size_t smemBytes = 0;
    const char* error = nullptr; // set when no cluster can hold a row
};
inline constexpr int kSoftmaxPipelineGroups = 4;        // cp.async groups per row and thread
inline constexpr int kSoftmaxPipelineMaxThreads = 768; // __launch_bounds__ (1024 spills at 64 regs)
// threads = 0 and buffers = 0: the defaults (512 threads at most, one buffer); otherwise the
// given values (a sweep).
constexpr SoftmaxPipelinePlan planSoftmaxPipeline(long long rows, long long cols, int vec,
                                                  int smCount, long long maxSmemBytes,
                                                  int maxCluster, int threads = 0,
                                                  int buffers = 0) {
    SoftmaxPipelinePlan p{};
    if (rows <= 0 || cols <= 0) return p;
    auto chunkFor = [&](long long cs) { return roundUp(ceilDiv(cols, cs), vec); };
    auto fitCluster = [&](long long nbuf) {
        long long cs = 1;
        while (cs < maxCluster && nbuf * chunkFor(cs) * 4 > maxSmemBytes)
            cs *= 2;
        return nbuf * chunkFor(cs) * 4 <= maxSmemBytes ? cs : 0;
    };
    const long long nbuf = buffers == 2 ? 2 : 1;
    long long cs = fitCluster(nbuf);
    if (cs == 0) {
        p.error = "row too long for the shared memory of one thread-block cluster";
        return p;
    }
    while (cs < maxCluster && rows * cs < smCount && chunkFor(cs * 2) >= kSoftmaxMinChunk)
        cs *= 2;
    p.clusterSize = static_cast<int>(cs);
    p.buffers = static_cast<int>(nbuf);
    p.chunk = chunkFor(cs);
    p.threads = threads > 0
                    ? static_cast<int>(clampLL(threads, 32, kSoftmaxPipelineMaxThreads))
                    : static_cast<int>(clampLL(pow2Ceil(ceilDiv(p.chunk / vec, 4)), 64, 512));
    p.smemBytes = static_cast<std::size_t>(nbuf * p.chunk * 4);
    return p;
}

// --- rmsnorm_kernel2 ------------------------------------------------------------------------
inline constexpr int kRmsTx = 32;    // threads across columns (one vector each)
inline constexpr int kRmsGroups = 8; // threads across channels

struct RmsnormPlan {
    int vec = 1;
    // Channels each thread keeps in registers (1, 2, 4, 8 or 16); 0 when C exceeds
    // kRmsGroups * 16 and the kernel re-reads the tile (from L2) for the write pass.
    int channelsPerThread = 0;
    long long tilesPerBatch = 0;
    long long tiles = 0;
    unsigned blocks = 0;
};

constexpr RmsnormPlan planRmsnorm(long long B, long long C, long long S, bool vec4) {
    RmsnormPlan p{};
    p.vec = vec4 ? 4 : 1;
    const long long cpt = ceilDiv(C, kRmsGroups);
    p.channelsPerThread = cpt <= 16 ? static_cast<int>(clampLL(pow2Ceil(cpt), 1, 16)) : 0;
    if (B <= 0 || C <= 0 || S <= 0) return p;
    p.tilesPerBatch = ceilDiv(S, kRmsTx * p.vec);
    p.tiles = B * p.tilesPerBatch;
    p.blocks = gridBlocks(p.tiles, 1);
    return p;
}

// --- convtranspose3d_mean_add_softmax_tanh_scale ----------------------------------------------
constexpr long long convTransposeOutSize(long long in, long long k, long long stride, long long pad,
                                         long long outPad) {
    return (in - 1) * stride - 2 * pad + k + outPad;
}

// Number of (input index i, tap k) pairs of one spatial dimension whose target o = i*s - p + k
// lies inside [0, out): the multiply-adds per (input channel, output channel) are the product
// of this over the three dimensions.
constexpr long long convTransposeValidPairs(long long in, long long out, long long k,
                                            long long stride, long long pad) {
    long long n = 0;
    for (long long t = 0; t < k; ++t) {
        // 0 <= i*s - p + t <= out - 1  <=>  ceil((p - t)/s) <= i <= floor((out - 1 + p - t)/s)
        long long lo = -floorDiv(-(pad - t), stride);
        long long hi = floorDiv(out - 1 + pad - t, stride);
        if (lo < 0) lo = 0;
        if (hi > in - 1) hi = in - 1;
        if (hi >= lo) n += hi - lo + 1;
    }
    return n;
}

struct ConvTaskShape {
    long long N = 0, Cin = 0, D = 0, H = 0, W = 0, Cout = 0, K = 0, stride = 0, pad = 0, outPad = 0,
              meanDim = 0, softmaxDim = 0;
    long long Do = 0, Ho = 0, Wo = 0;
    long long red[5] = {}; // shape after the mean (keepdim): the output's shape
    long long xElems = 0, wElems = 0, biasElems = 0, convElems = 0, outElems = 0;
    const char* error = nullptr;
};

// Validates the dims[] of the conv task (see registry.h) and derives every size from them.
constexpr ConvTaskShape convTaskShape(const long long* d) {
    ConvTaskShape s{};
    s.N = d[0], s.Cin = d[1], s.D = d[2], s.H = d[3], s.W = d[4], s.Cout = d[5], s.K = d[6];
    s.stride = d[7], s.pad = d[8], s.outPad = d[9], s.meanDim = d[10], s.softmaxDim = d[11];
    if (s.N < 0 || s.Cin < 0 || s.D < 0 || s.H < 0 || s.W < 0) {
        s.error = "negative input size";
        return s;
    }
    if (s.Cout <= 0 || s.K <= 0) {
        s.error = "out_channels and kernel_size must be positive";
        return s;
    }
    if (s.stride <= 0 || s.pad < 0 || s.outPad < 0) {
        s.error = "stride must be positive, padding and output_padding non-negative";
        return s;
    }
    if (s.outPad >= s.stride) {
        s.error = "output_padding must be smaller than stride (PyTorch's rule)";
        return s;
    }
    if (s.meanDim != 1 && s.meanDim != 2) {
        s.error = "dims[10] (mean_dim) must be 1 (broken L2-13) or 2 (repaired L2-13r)";
        return s;
    }
    if (s.softmaxDim < 1 || s.softmaxDim > 4) {
        s.error = "dims[11] (softmax_dim) must be 1..4";
        return s;
    }
    if (s.D > 0 && s.H > 0 && s.W > 0) {
        s.Do = convTransposeOutSize(s.D, s.K, s.stride, s.pad, s.outPad);
        s.Ho = convTransposeOutSize(s.H, s.K, s.stride, s.pad, s.outPad);
        s.Wo = convTransposeOutSize(s.W, s.K, s.stride, s.pad, s.outPad);
        if (s.Do <= 0 || s.Ho <= 0 || s.Wo <= 0) {
            s.error = "padding leaves an empty output";
            return s;
        }
    }
    const long long Cr = s.meanDim == 1 ? 1 : s.Cout;
    const long long Dr = s.meanDim == 2 ? (s.Do > 0 ? 1 : 0) : s.Do;
    s.red[0] = s.N, s.red[1] = Cr, s.red[2] = Dr, s.red[3] = s.Ho, s.red[4] = s.Wo;
    s.biasElems = Cr;
    if (!checkedProduct({s.N, s.Cin, s.D, s.H, s.W}, s.xElems) ||
        !checkedProduct({s.Cin, s.Cout, s.K, s.K, s.K}, s.wElems) ||
        !checkedProduct({s.N, s.Cout, s.Do, s.Ho, s.Wo}, s.convElems) ||
        !checkedProduct({s.red[0], s.red[1], s.red[2], s.red[3], s.red[4]}, s.outElems)) {
        s.error = "sizes overflow int64";
        return s;
    }
    return s;
}

} // namespace ks::kernels::plan
