// SPDX-License-Identifier: MIT
// y = softmax(x, dim=-1) for x [rows, cols] (KernelBench L1-23: 16 x 16384; newer KernelBench
// versions use rows of 393216). Row max is subtracted, so large negative inputs are stable, and
// NaN/Inf follow torch.softmax: a row holding NaN or +Inf, or only -Inf, becomes all NaN
// (exp(inf - inf) = NaN reaches the sum).
//
// softmax_kernel1  naive: one thread per row, three passes (max, sum of exp, write)
// softmax_kernel2  one block per row, shared-memory tree reductions for max and sum
// softmax_kernel3  one pass with online max/sum, warp-shuffle reductions, float4 loads
//                  (scalar when misaligned or cols % 4 != 0), 1024-thread blocks for long rows
// softmax_kernel4  a row split over a thread-block cluster (up to 16 blocks) held in shared
//                  memory (cp.async, whole chunk in flight): HBM read once; block partials of
//                  max and sum exchanged through DSMEM
// softmax_kernel5  a row split over a cluster without staging: online max/sum streamed from HBM,
//                  partials exchanged through DSMEM, the write pass re-reads the chunk from L2
//                  (the cluster grows until the rows in flight fit in L2); streaming stores.
//                  Measured on the H200 it does not beat kernel3/kernel4: 1.30 ms (59 % of copy)
//                  at 1024 x 393216, 8.8 us at 16 x 16384; issuing 4 loads per thread before use
//                  made it slower (1.41 ms). Kept as a measured negative result
//                  (bench/kernels/RESULTS.md).
// softmax_kernel6  kernel4's shared-memory row over a cluster, made persistent and pipelined: one
//                  cluster per co-resident slot walks rows; online max/sum a quarter of the chunk
//                  at a time as it lands (one cluster barrier per row, not two); the write pass
//                  reloads each slot with the next row right after reading it, so HBM reads and
//                  writes overlap; exp as one SFU ex2. H200: 0.906 ms at 1024 x 393216 (84 % of
//                  copy, 1.7x eager); at 16 x 16384 kernel4 stays faster (8.4 against 6.5 us).
#include "checks.h"
#include "common.cuh"
#include "variants.h"

#include <cooperative_groups.h>
#include <cuda_pipeline_primitives.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <vector>

namespace ks::kernels::softmax {
namespace {

namespace cg = cooperative_groups;
using detail::aligned16;

// naive: each thread walks its row three times, uncoalesced across the warp
__global__ void softmax_kernel1(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                long long cols) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows;
         r += stride) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float m = -INFINITY;
        for (long long c = 0; c < cols; ++c)
            m = fmaxf(m, xr[c]);
        float s = 0.f;
        for (long long c = 0; c < cols; ++c)
            s += expf(xr[c] - m);
        for (long long c = 0; c < cols; ++c)
            yr[c] = expf(xr[c] - m) / s;
    }
}

// one block per row, shared-memory tree reductions (blockDim.x a power of two)
__global__ void softmax_kernel2(const float* __restrict__ x, float* __restrict__ y, long long rows,
                                long long cols) {
    extern __shared__ float sh[];
    const int tid = threadIdx.x;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float m = -INFINITY;
        for (long long c = tid; c < cols; c += blockDim.x)
            m = fmaxf(m, xr[c]);
        sh[tid] = m;
        __syncthreads();
        for (int o = blockDim.x / 2; o > 0; o >>= 1) {
            if (tid < o) sh[tid] = fmaxf(sh[tid], sh[tid + o]);
            __syncthreads();
        }
        m = sh[0];
        __syncthreads();
        float s = 0.f;
        for (long long c = tid; c < cols; c += blockDim.x)
            s += expf(xr[c] - m);
        sh[tid] = s;
        __syncthreads();
        for (int o = blockDim.x / 2; o > 0; o >>= 1) {
            if (tid < o) sh[tid] += sh[tid + o];
            __syncthreads();
        }
        s = sh[0];
        __syncthreads();
        for (long long c = tid; c < cols; c += blockDim.x)
            yr[c] = expf(xr[c] - m) / s;
    }
}

// Online softmax state: m = running max, s = sum of exp(x - m). The guards keep the three-pass
// semantics: -Inf contributes nothing (an all -Inf row turns NaN in the write pass, where
// exp(-inf - -inf) = NaN), +Inf or NaN make s NaN, and an empty partial (s == 0, m = -Inf) never
// multiplies into a NaN.
__device__ __forceinline__ void onlineAdd(float& m, float& s, float v) {
    if (v > m) {
        // one exp per element once the max settles: rescale only when it grows
        s = (s == 0.f ? 0.f : s * expf(m - v)) + (v == INFINITY ? NAN : 1.f);
        m = v;
    } else if (v != -INFINITY) {
        s += expf(v - m);
    }
}
__device__ __forceinline__ void onlineMerge(float& m, float& s, float m2, float s2) {
    const float mn = fmaxf(m, m2);
    s = (s == 0.f ? 0.f : s * expf(m - mn)) + (s2 == 0.f ? 0.f : s2 * expf(m2 - mn));
    m = mn;
}
// Merge (m, s) over the 32 lanes of a warp: the xor butterfly leaves every lane with the bitwise
// same result (the merge is symmetric).
__device__ __forceinline__ void warpOnlineMerge(float& m, float& s) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        onlineMerge(m, s, m2, s2);
    }
}
// Merge (m, s) over the block through shM/shS (32 floats each): warp 0 ends with the block's
// (m, s) in every lane; the other warps' values are left partial. Warp 0 may overwrite shM/shS
// afterwards; other warps must not touch them before a barrier.
__device__ __forceinline__ void blockOnlineMerge(float& m, float& s, float* shM, float* shS) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    warpOnlineMerge(m, s);
    if (lane == 0) shM[warp] = m, shS[warp] = s;
    __syncthreads();
    if (warp == 0) {
        m = lane < nw ? shM[lane] : -INFINITY;
        s = lane < nw ? shS[lane] : 0.f;
        warpOnlineMerge(m, s);
    }
}

// one pass with online max/sum and warp shuffles; the write pass re-reads the row (from L2)
template <int VEC>
__global__ void __launch_bounds__(1024)
    softmax_kernel3(const float* __restrict__ x, float* __restrict__ y, long long rows,
                    long long cols) {
    __shared__ float shM[32], shS[32];
    const long long nv = cols / VEC; // VEC == 4 only when cols % 4 == 0
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float m = -INFINITY, s = 0.f;
        for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
            if constexpr (VEC == 4) {
                const float4 q = __ldg(reinterpret_cast<const float4*>(xr) + v);
                onlineAdd(m, s, q.x);
                onlineAdd(m, s, q.y);
                onlineAdd(m, s, q.z);
                onlineAdd(m, s, q.w);
            } else {
                onlineAdd(m, s, __ldg(xr + v));
            }
        }
        blockOnlineMerge(m, s, shM, shS);
        if (threadIdx.x == 0) shM[0] = m, shS[0] = s;
        __syncthreads();
        m = shM[0];
        const float inv = 1.f / shS[0];
        __syncthreads(); // shM/shS are rewritten for the next row
        for (long long v = threadIdx.x; v < nv; v += blockDim.x) {
            if constexpr (VEC == 4) {
                const float4 q = __ldg(reinterpret_cast<const float4*>(xr) + v);
                reinterpret_cast<float4*>(yr)[v] =
                    make_float4(expf(q.x - m) * inv, expf(q.y - m) * inv, expf(q.z - m) * inv,
                                expf(q.w - m) * inv);
            } else {
                yr[v] = expf(__ldg(xr + v) - m) * inv;
            }
        }
    }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KS_HAVE_CLUSTERS 1 // this device pass targets sm_90+: thread-block clusters exist
#endif

#ifdef KS_HAVE_CLUSTERS
template <int VEC> struct VecT;
template <> struct VecT<1> { using T = float; };
template <> struct VecT<4> { using T = float4; };
__device__ __forceinline__ float vexpSub(float a, float m) {
    return expf(a - m);
}
__device__ __forceinline__ float4 vexpSub(float4 a, float m) {
    return make_float4(expf(a.x - m), expf(a.y - m), expf(a.z - m), expf(a.w - m));
}
__device__ __forceinline__ float vscale(float a, float k) {
    return a * k;
}
__device__ __forceinline__ float4 vscale(float4 a, float k) {
    return make_float4(a.x * k, a.y * k, a.z * k, a.w * k);
}

__device__ __forceinline__ float vmax(float a) {
    return a;
}
__device__ __forceinline__ float vmax(float4 a) {
    return fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w));
}
__device__ __forceinline__ float vsum(float a) {
    return a;
}
__device__ __forceinline__ float vsum(float4 a) {
    return (a.x + a.y) + (a.z + a.w);
}

// Cluster-wide combine of one float per block: lane k of every warp fetches block k's value
// through DSMEM and a butterfly reduces them, so every thread of every block gets the bitwise
// same result (cluster size <= 16 < 32 lanes).
template <bool IS_MAX>
__device__ __forceinline__ float clusterCombine(cg::cluster_group& cluster, float* part) {
    const unsigned lane = threadIdx.x & 31;
    float v = IS_MAX ? -INFINITY : 0.f;
    if (lane < cluster.num_blocks()) v = *cluster.map_shared_rank(part, lane);
    return IS_MAX ? detail::warpMax(v) : detail::warpSum(v);
}
// The same for the online (max, sum) pair: every thread of every block of the cluster gets the
// row's bitwise same (m, s) from the blocks' partials.
__device__ __forceinline__ void clusterOnlineMerge(cg::cluster_group& cluster, float* partM,
                                                   float* partS, float& m, float& s) {
    const unsigned lane = threadIdx.x & 31;
    m = -INFINITY, s = 0.f;
    if (lane < cluster.num_blocks()) {
        m = *cluster.map_shared_rank(partM, lane);
        s = *cluster.map_shared_rank(partS, lane);
    }
    warpOnlineMerge(m, s);
}

// This block's part of rows split over its cluster: elements [begin, begin + len) of each row
// (len 0 for a block past the row's end); the grid's clusters take rows firstRow, firstRow +
// rowStep, ...
struct RowSlice {
    long long begin, len, firstRow, rowStep;
};
__device__ __forceinline__ RowSlice rowSlice(cg::cluster_group& cluster, long long cols,
                                             long long chunk) {
    const unsigned cs = cluster.num_blocks();
    const long long begin = static_cast<long long>(cluster.block_rank()) * chunk;
    return {begin, begin < cols ? min(chunk, cols - begin) : 0, blockIdx.x / cs, gridDim.x / cs};
}
#endif

// A row split over a cluster, each block's chunk staged in shared memory, so HBM is read once.
// Max, then exp + sum (the exps overwrite the chunk), then the scaled write: the three-pass
// arithmetic of torch, without the exp chain an online max/sum puts on the critical path
// (measured on the H200: 6.5 us against 8.4-9 us online at 16 x 16384, 1.30 against 1.53 ms at
// 1024 x 393216).
template <int VEC>
__global__ void __launch_bounds__(512, 2)
    softmax_kernel4(const float* __restrict__ x, float* __restrict__ y, long long rows,
                    long long cols, long long chunk) {
#ifdef KS_HAVE_CLUSTERS
    using V = typename VecT<VEC>::T;
    extern __shared__ float4 smem4[];
    V* sv = reinterpret_cast<V*>(smem4);
    __shared__ float scratch[32];
    // Per-row partials, double-buffered by row parity: buffer b is rewritten two rows later,
    // when every peer has passed a later cluster barrier and so finished reading it.
    __shared__ float partM[2], partS[2];
    cg::cluster_group cluster = cg::this_cluster();
    const auto [begin, len, firstRow, clusters] = rowSlice(cluster, cols, chunk);
    const long long nv = len / VEC; // chunk and cols are multiples of VEC
    const int tid = threadIdx.x, bd = blockDim.x;
    int buf = 0;
    for (long long r = firstRow; r < rows; r += clusters, buf ^= 1) {
        const V* xr = reinterpret_cast<const V*>(x + r * cols + begin);
        V* yr = reinterpret_cast<V*>(y + r * cols + begin);
        // The whole chunk in flight at once: cp.async copies global -> shared without staging
        // in registers. Each thread only ever touches the vectors it copied, so waiting on its
        // own copies is enough (no block barrier between the phases).
        for (long long v = tid; v < nv; v += bd)
            __pipeline_memcpy_async(sv + v, xr + v, sizeof(V));
        __pipeline_commit();
        __pipeline_wait_prior(0);
        float m = -INFINITY;
        for (long long v = tid; v < nv; v += bd)
            m = fmaxf(m, vmax(sv[v]));
        m = detail::blockMax(m, scratch);
        if (tid == 0) partM[buf] = m;
        cluster.sync();
        const float rowMax = clusterCombine<true>(cluster, &partM[buf]);
        float s = 0.f;
        for (long long v = tid; v < nv; v += bd) {
            const V e = vexpSub(sv[v], rowMax);
            sv[v] = e;
            s += vsum(e);
        }
        s = detail::blockSum(s, scratch);
        if (tid == 0) partS[buf] = s;
        cluster.sync();
        const float inv = 1.f / clusterCombine<false>(cluster, &partS[buf]);
        for (long long v = tid; v < nv; v += bd)
            yr[v] = vscale(sv[v], inv);
    }
    cluster.sync(); // peers may still read this block's partials: keep its shared memory alive
#endif // launch4 refuses devices below sm_90 before launching, so no other arch runs this
}


// Online max/sum over one vector: the max first, then one exp per element. -Inf adds nothing
// (also while m is still -Inf, where exp(-inf - -inf) would be NaN); NaN and +Inf turn s NaN
// as the three-pass form does (fmaxf skips NaN, so the NaN reaches the sum instead).
__device__ __forceinline__ void onlineAddVec(float& m, float& s, const float* v, int n) {
    float mq = v[0];
    for (int i = 1; i < n; ++i)
        mq = fmaxf(mq, v[i]);
    if (mq > m) {
        s = s == 0.f ? 0.f : s * expf(m - mq);
        m = mq;
    }
    for (int i = 0; i < n; ++i)
        s += v[i] == -INFINITY ? 0.f : expf(v[i] - m);
}

template <int VEC>
__global__ void __launch_bounds__(512, 2)
    softmax_kernel5(const float* __restrict__ x, float* __restrict__ y, long long rows,
                    long long cols, long long chunk) {
#ifdef KS_HAVE_CLUSTERS
    using V = typename VecT<VEC>::T;
    __shared__ float shM[32], shS[32];
    __shared__ float partM[2], partS[2]; // double-buffered by row parity, as in kernel4
    cg::cluster_group cluster = cg::this_cluster();
    const auto [begin, len, firstRow, clusters] = rowSlice(cluster, cols, chunk);
    const long long nv = len / VEC;
    const int tid = threadIdx.x, bd = blockDim.x;
    int buf = 0;
    for (long long r = firstRow; r < rows; r += clusters, buf ^= 1) {
        const V* xr = reinterpret_cast<const V*>(x + r * cols + begin);
        V* yr = reinterpret_cast<V*>(y + r * cols + begin);
        float m = -INFINITY, s = 0.f;
        for (long long v = tid; v < nv; v += bd) {
            const V q = __ldg(xr + v);
            onlineAddVec(m, s, reinterpret_cast<const float*>(&q), VEC);
        }
        blockOnlineMerge(m, s, shM, shS);
        if (threadIdx.x == 0) partM[buf] = m, partS[buf] = s;
        cluster.sync();
        clusterOnlineMerge(cluster, &partM[buf], &partS[buf], m, s);
        const float inv = 1.f / s;
        // Last use of x and write-once y: evict-first loads and stores keep L2 for the rows
        // whose first pass is still to be re-read.
        for (long long v = tid; v < nv; v += bd) {
            if constexpr (VEC == 4) {
                const float4 q = __ldcs(reinterpret_cast<const float4*>(xr) + v);
                __stcs(reinterpret_cast<float4*>(yr) + v,
                       make_float4(expf(q.x - m) * inv, expf(q.y - m) * inv, expf(q.z - m) * inv,
                                   expf(q.w - m) * inv));
            } else {
                __stcs(reinterpret_cast<float*>(yr) + v,
                       expf(__ldcs(reinterpret_cast<const float*>(xr) + v) - m) * inv);
            }
        }
    }
    cluster.sync(); // peers may still read this block's partials
#endif
}

// kernel6. Thread t owns the vectors t, t + bd, t + 2 bd, ... of its block's chunk (in each
// buffer): it alone copies them in (cp.async), reads them and reloads them, so its own cp.async
// waits order everything and no block barrier guards a buffer. Each row's copies are committed
// in kSoftmaxPipelineGroups groups (always that many, empty ones too), so with the next row's
// groups committed behind them (two buffers), "at most 4 * NBUF - 1 - g groups pending" means
// quarter g of the current row has landed.
constexpr int kGroups = plan::kSoftmaxPipelineGroups;
static_assert(kGroups == 4, "waitLanded spells out the cp.async.wait_group immediates");
template <int NBUF>
__device__ __forceinline__ void waitLanded(int g) {
    switch (g + (NBUF == 2 ? 0 : 4)) {
    case 0: __pipeline_wait_prior(7); break;
    case 1: __pipeline_wait_prior(6); break;
    case 2: __pipeline_wait_prior(5); break;
    case 3: __pipeline_wait_prior(4); break;
    case 4: __pipeline_wait_prior(3); break;
    case 5: __pipeline_wait_prior(2); break;
    case 6: __pipeline_wait_prior(1); break;
    default: __pipeline_wait_prior(0); break;
    }
}
__device__ __forceinline__ int groupBegin(int g, int perThread) {
    return g * perThread / kGroups;
}

// exp(x - m) as 2^((x - m) log2 e) on the SFU (ex2.approx, 2 ulp; results below 2^-126 flush
// to 0, far under any tolerance): x - m is exact where it matters (x near m), and the rounding
// of the product costs ~|x - m| * 6e-8 relative, against ~10 instructions of expf.
// -Inf gives 0 and NaN stays NaN, exactly as expf.
constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float expm(float x, float m) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"((x - m) * kLog2e));
    return r;
}
__device__ __forceinline__ float4 expm(float4 x, float m) {
    return make_float4(expm(x.x, m), expm(x.y, m), expm(x.z, m), expm(x.w, m));
}

template <int VEC, int NBUF>
__global__ void __launch_bounds__(plan::kSoftmaxPipelineMaxThreads, 1)
    softmax_kernel6(const float* __restrict__ x, float* __restrict__ y, long long rows,
                    long long cols, long long chunk) {
#ifdef KS_HAVE_CLUSTERS
    using V = typename VecT<VEC>::T;
    extern __shared__ float4 smem4[];
    __shared__ float shM[32], shS[32];
    __shared__ float partM[2], partS[2]; // double-buffered by row parity, as in kernel4
    cg::cluster_group cluster = cg::this_cluster();
    const auto [begin, len, firstRow, clusters] = rowSlice(cluster, cols, chunk);
    const int nv = static_cast<int>(len / VEC); // a chunk fits in shared memory: < 2^16 vectors
    V* const bufs = reinterpret_cast<V*>(smem4);
    const int bufStride = static_cast<int>(chunk / VEC);
    const int tid = threadIdx.x, bd = blockDim.x;
    const int perThread = (nv + bd - 1) / bd;
    const int mine = tid < nv ? (nv - 1 - tid) / bd + 1 : 0; // slots of this thread that exist
    // slots [k0, k1) of quarter g that exist, and the first one's offset
    auto quarter = [&](int g, int& k0, int& k1) {
        k0 = groupBegin(g, perThread);
        k1 = min(groupBegin(g + 1, perThread), mine);
        return tid + k0 * bd;
    };
    // Copies of row r into sv, committed as kGroups groups (empty ones when r is past the end).
    auto issueRow = [&](long long r, V* sv) {
        const V* xr = reinterpret_cast<const V*>(x + r * cols + begin);
        for (int g = 0; g < kGroups; ++g) {
            int k0, k1;
            int v = quarter(g, k0, k1);
            if (r < rows)
                for (int k = k0; k < k1; ++k, v += bd)
                    __pipeline_memcpy_async(sv + v, xr + v, sizeof(V));
            __pipeline_commit();
        }
    };
    long long r = firstRow;
    issueRow(r, bufs);
    int parity = 0, cur = 0;
    for (; r < rows; r += clusters, parity ^= 1) {
        V* const sv = bufs + cur * bufStride;
        const long long rn = r + clusters;
        if constexpr (NBUF == 2) issueRow(rn, bufs + (cur ^ 1) * bufStride);
        // Online max/sum, a quarter at a time as it lands: that quarter's max first (so at most
        // one rescale per quarter), then its exps. While m is still -Inf (only -Inf and NaN
        // seen) the exps are taken against 0, which keeps s at 0, or NaN if a NaN was seen.
        float m = -INFINITY, s = 0.f;
        for (int g = 0; g < kGroups; ++g) {
            waitLanded<NBUF>(g);
            int k0, k1;
            const int v0 = quarter(g, k0, k1);
            float mq = -INFINITY;
#pragma unroll 4
            for (int k = k0, v = v0; k < k1; ++k, v += bd)
                mq = fmaxf(mq, vmax(sv[v]));
            if (mq > m) {
                s = s == 0.f ? 0.f : s * expm(m, mq);
                m = mq;
            }
            const float mu = m == -INFINITY ? 0.f : m;
#pragma unroll 4
            for (int k = k0, v = v0; k < k1; ++k, v += bd)
                s += vsum(expm(sv[v], mu));
        }
        blockOnlineMerge(m, s, shM, shS);
        if (threadIdx.x == 0) partM[parity] = m, partS[parity] = s;
        cluster.sync();
        clusterOnlineMerge(cluster, &partM[parity], &partS[parity], m, s);
        const float inv = 1.f / s;
        V* yr = reinterpret_cast<V*>(y + r * cols + begin);
        // Write-once y: streaming stores. One buffer: a slot is reloaded with the next row right
        // after its value is read (same thread, in order), so the next row streams in while this
        // one streams out.
        const V* xn = reinterpret_cast<const V*>(x + (rn < rows ? rn : r) * cols + begin);
        const bool reload = NBUF == 1 && rn < rows;
        for (int g = 0; g < kGroups; ++g) {
            int k0, k1;
            int v = quarter(g, k0, k1);
#pragma unroll 4
            for (int k = k0; k < k1; ++k, v += bd) {
                const V q = sv[v];
                __stcs(yr + v, vscale(expm(q, m), inv));
                if (reload) __pipeline_memcpy_async(sv + v, xn + v, sizeof(V));
            }
            if constexpr (NBUF == 1) __pipeline_commit();
        }
        if constexpr (NBUF == 2) cur ^= 1;
    }
    cluster.sync(); // peers may still read this block's partials
#endif
}

struct Operands {
    const float* x;
    float* y;
    long long rows, cols;
};
Operands operands(const Args& a) {
    return {a.in[0], a.out, a.dims[0], a.dims[1]};
}

bool canVec4(const Operands& o) {
    return o.cols % 4 == 0 && aligned16(o.x) && aligned16(o.y);
}

unsigned rowGrid(long long rows) {
    return static_cast<unsigned>(plan::clampLL(rows, 1, plan::kMaxGridX));
}

struct DeviceLimits {
    int major = 0;
    int sms = 0;
    int maxSmemOptin = 0;
};
cudaError_t deviceLimits(DeviceLimits& d) {
    int dev = 0;
    KS_CUDA_CHECK(cudaGetDevice(&dev));
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, dev));
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev));
    KS_CUDA_CHECK(
        cudaDeviceGetAttribute(&d.maxSmemOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return cudaSuccess;
}

// One cluster launch's configuration (the attribute lives beside the config that points at it).
struct ClusterLaunch {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute attr{};
    ClusterLaunch(long long clusters, int clusterSize, int threads, std::size_t smemBytes,
                  cudaStream_t stream) {
        cfg.gridDim = dim3(static_cast<unsigned>(clusters * clusterSize));
        cfg.blockDim = dim3(static_cast<unsigned>(threads));
        cfg.dynamicSmemBytes = smemBytes;
        cfg.stream = stream;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = static_cast<unsigned>(clusterSize);
        attr.val.clusterDim.y = 1;
        attr.val.clusterDim.z = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
    }
    ClusterLaunch(const ClusterLaunch&) = delete;
    ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// What the cluster launchers have asked of the driver, per device and kernel: the attributes
// set so far and the co-resident cluster count of each launch shape. Guarded by g_kernelStateMu.
struct KernelState {
    struct Shape {
        unsigned clusterSize, threads;
        std::size_t smemBytes;
        int active;
    };
    int dev;
    const void* kernel;
    std::size_t smemBytes = 0; // MaxDynamicSharedMemorySize set so far
    bool nonPortable = false;  // NonPortableClusterSizeAllowed set
    std::vector<Shape> shapes;
};
std::mutex g_kernelStateMu;
KernelState& kernelState(int dev, const void* kernel) {
    // The reference is used only under the mutex and before the next call (a push_back may move).
    static std::vector<KernelState> states;
    for (KernelState& k : states)
        if (k.dev == dev && k.kernel == kernel) return k;
    states.push_back({});
    states.back().dev = dev;
    states.back().kernel = kernel;
    return states.back();
}

// Opt the kernel into the shared memory and cluster size a launch asks for (16 blocks is a
// non-portable cluster size). Both attributes only ever grow, so each is set once per device and
// kernel, and again only when a launch needs more: a timed launch makes no driver call for them.
cudaError_t prepareClusterKernel(const void* kernel, std::size_t smemBytes, int clusterSize) {
    int dev = 0;
    KS_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard<std::mutex> lock(g_kernelStateMu);
    KernelState& k = kernelState(dev, kernel);
    if (smemBytes > k.smemBytes) {
        KS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(smemBytes)));
        k.smemBytes = smemBytes;
    }
    if (clusterSize > 8 && !k.nonPortable) {
        KS_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        k.nonPortable = true;
    }
    return cudaSuccess;
}

// How many clusters of this launch's shape the device co-schedules (0: none), asked once per
// device, kernel and shape (the query is a driver round trip). Prepare the kernel first.
cudaError_t activeClusters(const void* kernel, const ClusterLaunch& l, int& n) {
    int dev = 0;
    KS_CUDA_CHECK(cudaGetDevice(&dev));
    const unsigned cs = l.attr.val.clusterDim.x, threads = l.cfg.blockDim.x;
    const std::lock_guard<std::mutex> lock(g_kernelStateMu);
    KernelState& k = kernelState(dev, kernel);
    for (const KernelState::Shape& s : k.shapes)
        if (s.clusterSize == cs && s.threads == threads && s.smemBytes == l.cfg.dynamicSmemBytes) {
            n = s.active;
            return cudaSuccess;
        }
    KS_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &l.cfg));
    k.shapes.push_back({cs, threads, l.cfg.dynamicSmemBytes, n});
    return cudaSuccess;
}

// deviceLimits, refusing devices without thread-block clusters (below sm_90) for `kernel`
cudaError_t clusterDeviceLimits(DeviceLimits& d, const char* kernel) {
    if (const cudaError_t e = deviceLimits(d); e != cudaSuccess) return e;
    if (d.major >= 9) return cudaSuccess;
    char why[96]; // recordError copies it
    std::snprintf(why, sizeof why, "%s needs thread-block clusters (sm_90 or newer)", kernel);
    return detail::recordError(cudaErrorNotSupported, __FILE__, __LINE__, why);
}

// kernel4: launches when this device co-schedules the plan's clusters; active = 0 tells the
// caller to retry with smaller ones.
template <int VEC>
cudaError_t launchCluster(const Operands& o, const plan::SoftmaxClusterPlan& p, cudaStream_t stream,
                          int& active) {
    const void* kernel = reinterpret_cast<const void*>(softmax_kernel4<VEC>);
    KS_CUDA_CHECK(prepareClusterKernel(kernel, p.smemBytes, p.clusterSize));
    const long long clusters = plan::clampLL(o.rows, 1, plan::kMaxGridX / p.clusterSize);
    const ClusterLaunch l(clusters, p.clusterSize, p.threads, p.smemBytes, stream);
    active = 1;
    if (p.clusterSize > 8) KS_CUDA_CHECK(activeClusters(kernel, l, active));
    if (active <= 0) return cudaSuccess;
    KS_CUDA_CHECK(cudaLaunchKernelEx(&l.cfg, softmax_kernel4<VEC>, o.x, o.y, o.rows, o.cols,
                                     p.chunk));
    return cudaSuccess;
}

// Opt-in shared memory per block left for a kernel's dynamic buffer beside its static arrays.
constexpr int kStaticSmemReserve = 1024;

} // namespace

const char* supports(const Args& a) {
    const auto [x, y, rows, cols] = operands(a);
    if (rows < 0 || cols < 0) return "negative size";
    long long n = 0;
    if (!plan::checkedProduct({rows, cols}, n) || n > (std::numeric_limits<long long>::max() >> 3))
        return "rows * cols overflows int64 byte offsets";
    if (auto r = detail::checkTensor(x, n, "x (in[0]) is null", "x (in[0]) is not 4-byte aligned"))
        return r;
    if (auto r = detail::checkTensor(y, n, "y (out) is null", "y (out) is not 4-byte aligned"))
        return r;
    if (detail::overlaps(x, n, y, n)) return "out overlaps the input";
    return nullptr;
}

const char* supports4(const Args& a) {
    if (auto r = supports(a)) return r;
    const auto o = operands(a);
    // Host-side check against an H100/H200 (132 SMs, 227 KiB opt-in shared memory per block,
    // clusters of up to 16); launch4 re-plans with the real device's limits.
    const auto p = plan::planSoftmaxCluster(o.rows, o.cols, canVec4(o) ? 4 : 1, 132, 232448, 16);
    if (p.error) return "a row longer than 16 blocks' shared memory (~930k floats) does not fit";
    return nullptr;
}

cudaError_t launch1(const Args& args, cudaStream_t stream) {
    const auto [x, y, rows, cols] = operands(args);
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    softmax_kernel1<<<plan::gridBlocks(rows, 128), 128, 0, stream>>>(x, y, rows, cols);
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch2(const Args& args, cudaStream_t stream) {
    const auto [x, y, rows, cols] = operands(args);
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    constexpr int threads = 256;
    softmax_kernel2<<<rowGrid(rows), threads, threads * sizeof(float), stream>>>(x, y, rows, cols);
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch3(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    if (o.rows <= 0 || o.cols <= 0) return cudaSuccess;
    if (canVec4(o))
        softmax_kernel3<4><<<rowGrid(o.rows), plan::softmaxRowThreads(o.cols, 4), 0, stream>>>(
            o.x, o.y, o.rows, o.cols);
    else
        softmax_kernel3<1><<<rowGrid(o.rows), plan::softmaxRowThreads(o.cols, 1), 0, stream>>>(
            o.x, o.y, o.rows, o.cols);
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch4(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    if (o.rows <= 0 || o.cols <= 0) return cudaSuccess;
    DeviceLimits d;
    if (const cudaError_t e = clusterDeviceLimits(d, "softmax_kernel4"); e != cudaSuccess) return e;
    const bool vec = canVec4(o);
    for (int maxCluster = 16; maxCluster >= 1; maxCluster /= 2) {
        const auto p = plan::planSoftmaxCluster(o.rows, o.cols, vec ? 4 : 1, d.sms, d.maxSmemOptin,
                                                maxCluster);
        if (p.error)
            return detail::recordError(
                cudaErrorInvalidValue, __FILE__, __LINE__,
                "softmax_kernel4: row does not fit in a cluster's shared memory");
        int active = 0;
        const cudaError_t e =
            vec ? launchCluster<4>(o, p, stream, active) : launchCluster<1>(o, p, stream, active);
        if (e != cudaSuccess) return e;
        if (active > 0) return cudaSuccess;
        if (p.clusterSize <= 8) break; // nothing smaller to try that the plan would pick
    }
    return detail::recordError(cudaErrorInvalidClusterSize, __FILE__, __LINE__,
                               "softmax_kernel4: no cluster configuration can be scheduled");
}


cudaError_t launch5(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    if (o.rows <= 0 || o.cols <= 0) return cudaSuccess;
    DeviceLimits d;
    if (const cudaError_t e = clusterDeviceLimits(d, "softmax_kernel5"); e != cudaSuccess) return e;
    int dev = 0, l2 = 0;
    KS_CUDA_CHECK(cudaGetDevice(&dev));
    KS_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    const bool vec = canVec4(o);
    auto kernel = vec ? softmax_kernel5<4> : softmax_kernel5<1>;
    for (int maxCluster = 16; maxCluster >= 1; maxCluster /= 2) {
        const auto p = plan::planSoftmaxSplit(o.rows, o.cols, vec ? 4 : 1, d.sms, l2, maxCluster);
        KS_CUDA_CHECK(prepareClusterKernel(reinterpret_cast<const void*>(kernel), 0, p.clusterSize));
        const long long clusters = plan::clampLL(o.rows, 1, plan::kMaxGridX / p.clusterSize);
        const ClusterLaunch l(clusters, p.clusterSize, p.threads, 0, stream);
        if (p.clusterSize > 8) {
            // a non-portable size: fall back to 8 when this device cannot co-schedule 16
            int active = 0;
            KS_CUDA_CHECK(activeClusters(reinterpret_cast<const void*>(kernel), l, active));
            if (active <= 0) continue;
        }
        KS_CUDA_CHECK(cudaLaunchKernelEx(&l.cfg, kernel, o.x, o.y, o.rows, o.cols, p.chunk));
        KS_CUDA_CHECK_LAUNCH();
        return cudaSuccess;
    }
    return detail::recordError(cudaErrorInvalidClusterSize, __FILE__, __LINE__,
                               "softmax_kernel5: no cluster configuration can be scheduled");
}

cudaError_t launch6With(const Args& args, cudaStream_t stream, int threads, int buffers) {
    const auto o = operands(args);
    if (o.rows <= 0 || o.cols <= 0) return cudaSuccess;
    DeviceLimits d;
    if (const cudaError_t e = clusterDeviceLimits(d, "softmax_kernel6"); e != cudaSuccess) return e;
    const bool vec = canVec4(o);
    for (int maxCluster = 16; maxCluster >= 1; maxCluster /= 2) {
        const auto p = plan::planSoftmaxPipeline(o.rows, o.cols, vec ? 4 : 1, d.sms,
                                                 d.maxSmemOptin - kStaticSmemReserve, maxCluster,
                                                 threads, buffers);
        if (p.error) {
            if (maxCluster < 16) break; // a smaller cluster holds less
            return detail::recordError(
                cudaErrorInvalidValue, __FILE__, __LINE__,
                "softmax_kernel6: row does not fit in a cluster's shared memory");
        }
        auto kernel = vec ? (p.buffers == 2 ? softmax_kernel6<4, 2> : softmax_kernel6<4, 1>)
                          : (p.buffers == 2 ? softmax_kernel6<1, 2> : softmax_kernel6<1, 1>);
        const void* k = reinterpret_cast<const void*>(kernel);
        KS_CUDA_CHECK(prepareClusterKernel(k, p.smemBytes, p.clusterSize));
        // Persistent: as many clusters as the device holds at once (rows are strided over them),
        // so each one's next row can stream in while the current one streams out.
        int active = 0;
        {
            const ClusterLaunch probe(1, p.clusterSize, p.threads, p.smemBytes, stream);
            KS_CUDA_CHECK(activeClusters(k, probe, active));
        }
        if (active <= 0) {
            if (p.clusterSize <= 1) break;
            continue; // e.g. 16-block clusters this device cannot co-schedule: try 8
        }
        const ClusterLaunch l(std::min<long long>(o.rows, active), p.clusterSize, p.threads,
                              p.smemBytes, stream);
        KS_CUDA_CHECK(cudaLaunchKernelEx(&l.cfg, kernel, o.x, o.y, o.rows, o.cols, p.chunk));
        KS_CUDA_CHECK_LAUNCH();
        return cudaSuccess;
    }
    return detail::recordError(cudaErrorInvalidClusterSize, __FILE__, __LINE__,
                               "softmax_kernel6: no cluster configuration can be scheduled");
}

cudaError_t launch6(const Args& args, cudaStream_t stream) {
    return launch6With(args, stream, 0, 0);
}

const char* supports6(const Args& a) {
    if (auto r = supports(a)) return r;
    const auto o = operands(a);
    // host-side check against an H100/H200 (as supports4); launch6 re-plans with the device's
    const auto p = plan::planSoftmaxPipeline(o.rows, o.cols, canVec4(o) ? 4 : 1, 132,
                                             232448 - kStaticSmemReserve, 16);
    if (p.error) return "a row longer than 16 blocks' shared memory (~900k floats) does not fit";
    return nullptr;
}

} // namespace ks::kernels::softmax
