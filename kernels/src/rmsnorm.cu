// SPDX-License-Identifier: MIT
// y = x / sqrt(mean(x^2, dim=1, keepdim) + eps) for x [B, C, H, W] (KernelBench L1-36: 16 x 64 x
// 256 x 256, eps 1e-5, no weight). The reduction runs across channels, which are H*W apart in
// memory, so the contiguous direction is the column (h, w): threads must walk columns to
// coalesce. The floor is one read and one write of x (537 MB at the task shape).
//
// rmsnorm_kernel1  naive: one thread per (b, h, w) column, loops C twice (sum of squares, write)
// rmsnorm_kernel2  one pass: a block takes 32 float4 columns x 8 channel groups, keeps its
//                  channels in registers, reduces across groups in shared memory, writes;
//                  scalar when misaligned or H*W % 4 != 0, re-reads from L2 when C > 128
#include "checks.h"
#include "common.cuh"
#include "variants.h"

namespace ks::kernels::rmsnorm {
namespace {

using detail::aligned16;

// naive: per column, sum of squares then scaled write (coalesced across (h, w), reads x twice)
__global__ void rmsnorm_kernel1(const float* __restrict__ x, float* __restrict__ y, long long B,
                                long long C, long long S, float eps) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < B * S;
         i += stride) {
        const long long b = i / S, s = i - b * S;
        const float* xc = x + b * C * S + s;
        float* yc = y + b * C * S + s;
        float ss = 0.f;
        for (long long c = 0; c < C; ++c) {
            const float v = xc[c * S];
            ss += v * v;
        }
        const float rms = sqrtf(ss / static_cast<float>(C) + eps);
        for (long long c = 0; c < C; ++c)
            yc[c * S] = xc[c * S] / rms;
    }
}

template <int VEC> struct Vec;
template <> struct Vec<1> {
    using T = float;
    static __device__ __forceinline__ T load(const float* p) { return __ldg(p); }
    static __device__ __forceinline__ void store(float* p, T v) { *p = v; }
    static __device__ __forceinline__ T zero() { return 0.f; }
    static __device__ __forceinline__ T fmaSq(T v, T acc) { return fmaf(v, v, acc); }
    static __device__ __forceinline__ T add(T a, T b) { return a + b; }
    static __device__ __forceinline__ T mul(T a, T b) { return a * b; }
    static __device__ __forceinline__ T invRms(T ss, float c, float eps) {
        return 1.f / sqrtf(ss / c + eps);
    }
};
template <> struct Vec<4> {
    using T = float4;
    static __device__ __forceinline__ T load(const float* p) {
        return __ldg(reinterpret_cast<const float4*>(p));
    }
    static __device__ __forceinline__ void store(float* p, T v) {
        *reinterpret_cast<float4*>(p) = v;
    }
    static __device__ __forceinline__ T zero() { return make_float4(0.f, 0.f, 0.f, 0.f); }
    static __device__ __forceinline__ T fmaSq(T v, T a) {
        return make_float4(fmaf(v.x, v.x, a.x), fmaf(v.y, v.y, a.y), fmaf(v.z, v.z, a.z),
                           fmaf(v.w, v.w, a.w));
    }
    static __device__ __forceinline__ T add(T a, T b) {
        return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    static __device__ __forceinline__ T mul(T a, T b) {
        return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
    }
    static __device__ __forceinline__ T invRms(T ss, float c, float eps) {
        return make_float4(1.f / sqrtf(ss.x / c + eps), 1.f / sqrtf(ss.y / c + eps),
                           1.f / sqrtf(ss.z / c + eps), 1.f / sqrtf(ss.w / c + eps));
    }
};

// one pass: channels split over kRmsGroups thread rows, each thread holding CPT channels of
// its VEC columns in registers (CPT == 0: stream them twice, the second time from L2)
template <int VEC, int CPT>
__global__ void __launch_bounds__(plan::kRmsTx* plan::kRmsGroups)
    rmsnorm_kernel2(const float* __restrict__ x, float* __restrict__ y, long long C, long long S,
                    float eps, long long tilesPerBatch, long long tiles) {
    using V = Vec<VEC>;
    using T = typename V::T;
    constexpr int G = plan::kRmsGroups;
    __shared__ T red[G][plan::kRmsTx];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const float cf = static_cast<float>(C);
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        const long long b = t / tilesPerBatch;
        const long long s0 = (t - b * tilesPerBatch) * (plan::kRmsTx * VEC) + tx * VEC;
        const bool active = s0 < S; // VEC == 4 implies S % 4 == 0, so s0 + 3 < S too
        const float* xb = x + b * C * S + s0;
        float* yb = y + b * C * S + s0;
        T ss = V::zero();
        if constexpr (CPT > 0) {
            T v[CPT];
#pragma unroll
            for (int k = 0; k < CPT; ++k) {
                const long long c = ty + static_cast<long long>(k) * G;
                v[k] = (active && c < C) ? V::load(xb + c * S) : V::zero();
            }
#pragma unroll
            for (int k = 0; k < CPT; ++k)
                ss = V::fmaSq(v[k], ss);
            red[ty][tx] = ss;
            __syncthreads();
            T tot = red[0][tx];
#pragma unroll
            for (int g = 1; g < G; ++g)
                tot = V::add(tot, red[g][tx]);
            const T inv = V::invRms(tot, cf, eps);
#pragma unroll
            for (int k = 0; k < CPT; ++k) {
                const long long c = ty + static_cast<long long>(k) * G;
                if (active && c < C) V::store(yb + c * S, V::mul(v[k], inv));
            }
        } else {
            if (active)
                for (long long c = ty; c < C; c += G)
                    ss = V::fmaSq(V::load(xb + c * S), ss);
            red[ty][tx] = ss;
            __syncthreads();
            T tot = red[0][tx];
#pragma unroll
            for (int g = 1; g < G; ++g)
                tot = V::add(tot, red[g][tx]);
            const T inv = V::invRms(tot, cf, eps);
            if (active)
                for (long long c = ty; c < C; c += G)
                    V::store(yb + c * S, V::mul(V::load(xb + c * S), inv));
        }
        __syncthreads(); // red[] is rewritten by the next tile
    }
}

struct Operands {
    const float* x;
    float* y;
    long long B, C, H, W;
    float eps;
};
Operands operands(const Args& a) {
    return {a.in[0], a.out, a.dims[0], a.dims[1], a.dims[2], a.dims[3], a.scalars[0]};
}

template <int VEC>
cudaError_t launch2Vec(const Operands& o, const plan::RmsnormPlan& p, cudaStream_t stream) {
    const dim3 block(plan::kRmsTx, plan::kRmsGroups);
    const long long S = o.H * o.W;
    switch (p.channelsPerThread) {
#define KS_RMS_CASE(CPT)                                                                           \
    case CPT:                                                                                      \
        rmsnorm_kernel2<VEC, CPT>                                                                  \
            <<<p.blocks, block, 0, stream>>>(o.x, o.y, o.C, S, o.eps, p.tilesPerBatch, p.tiles);   \
        break;
        KS_RMS_CASE(0)
        KS_RMS_CASE(1)
        KS_RMS_CASE(2)
        KS_RMS_CASE(4)
        KS_RMS_CASE(8)
        KS_RMS_CASE(16)
#undef KS_RMS_CASE
    default:
        return detail::recordError(cudaErrorInvalidValue, __FILE__, __LINE__,
                                   "rmsnorm_kernel2: unexpected channels per thread");
    }
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

} // namespace

const char* supports(const Args& a) {
    const auto o = operands(a);
    if (o.B < 0 || o.C < 0 || o.H < 0 || o.W < 0) return "negative size";
    long long n = 0;
    if (!plan::checkedProduct({o.B, o.C, o.H, o.W}, n) ||
        n > (std::numeric_limits<long long>::max() >> 3))
        return "B * C * H * W overflows int64 byte offsets";
    if (auto r =
            detail::checkTensor(o.x, n, "x (in[0]) is null", "x (in[0]) is not 4-byte aligned"))
        return r;
    if (auto r = detail::checkTensor(o.y, n, "y (out) is null", "y (out) is not 4-byte aligned"))
        return r;
    if (detail::overlaps(o.x, n, o.y, n)) return "out overlaps the input";
    return nullptr;
}

cudaError_t launch1(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    const long long S = o.H * o.W;
    if (o.B <= 0 || o.C <= 0 || S <= 0) return cudaSuccess;
    rmsnorm_kernel1<<<plan::gridBlocks(o.B * S, 256), 256, 0, stream>>>(o.x, o.y, o.B, o.C, S,
                                                                        o.eps);
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

cudaError_t launch2(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    const long long S = o.H * o.W;
    if (o.B <= 0 || o.C <= 0 || S <= 0) return cudaSuccess;
    const bool vec = S % 4 == 0 && aligned16(o.x) && aligned16(o.y);
    const auto p = plan::planRmsnorm(o.B, o.C, S, vec);
    return vec ? launch2Vec<4>(o, p, stream) : launch2Vec<1>(o, p, stream);
}

} // namespace ks::kernels::rmsnorm
