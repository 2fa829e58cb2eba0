// SPDX-License-Identifier: MIT
// The per-seed statistics in few passes (see fusedstats.h for what each computes and how it
// relates to the ATen path in streamstats.cpp).
#include "fusedstats.h"

#include <cuda_runtime.h>

#include <atomic>
#include <cmath>

namespace ks::fused {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kSharedBins = 8192; // histograms up to this many bins count in shared memory

int smCount() {
    static std::atomic<int> cached[64] = {};
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 132;
    int v = cached[dev].load(std::memory_order_relaxed);
    if (v > 0) return v;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || v <= 0) v = 132;
    cached[dev].store(v, std::memory_order_relaxed);
    return v;
}

int elementwiseBlocks(int64_t n) {
    const int64_t want = (n + kThreads - 1) / kThreads;
    const int64_t cap = static_cast<int64_t>(smCount()) * 16;
    return static_cast<int>(want < 1 ? 1 : (want < cap ? want : cap));
}

cudaStream_t asStream(void* s) { return static_cast<cudaStream_t>(s); }

int lastLaunchError() { return static_cast<int>(cudaGetLastError()); }

// --- Welford across seeds, element by element --------------------------------------------------

__global__ void welfordKernel(const float* __restrict__ x, double* __restrict__ mean, double* __restrict__ m2,
                              int64_t n, int64_t count, double alpha) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double v = static_cast<double>(x[i]);
        if (count == 1) {
            mean[i] = v;
            m2[i] = 0.0;
            continue;
        }
        const double m = mean[i];
        const double d = v - m;
        const double mn = fma(alpha, d, m); // ATen: mean.add_(delta, alpha)
        mean[i] = mn;
        m2[i] = fma(d, v - mn, m2[i]); // ATen: m2.addcmul_(delta, v - mean)
    }
}

// --- block reductions (deterministic: warps combined in order by thread 0) ----------------------

struct Moments {
    double n = 0, mean = 0, m2 = 0;
};

__device__ inline void push(Moments& w, double v) {
    w.n += 1.0;
    const double d = v - w.mean;
    w.mean += d / w.n;
    w.m2 += d * (v - w.mean);
}

__host__ __device__ inline Moments combine(const Moments& a, const Moments& b) {
    if (b.n == 0) return a;
    if (a.n == 0) return b;
    Moments r;
    r.n = a.n + b.n;
    const double d = b.mean - a.mean;
    r.mean = a.mean + d * (b.n / r.n);
    r.m2 = a.m2 + b.m2 + d * d * (a.n * b.n / r.n);
    return r;
}

__device__ inline double shfl(double v, int o) { return __shfl_down_sync(0xffffffffu, v, o); }

struct SeedPart {
    double finite = 0, nan = 0, under = 0, over = 0;
    float mn = INFINITY, mx = -INFINITY, fmn = INFINITY, fmx = -INFINITY;
    Moments w;
};

__device__ inline void merge(SeedPart& a, const SeedPart& b) {
    a.finite += b.finite;
    a.nan += b.nan;
    a.under += b.under;
    a.over += b.over;
    a.mn = fminf(a.mn, b.mn);
    a.mx = fmaxf(a.mx, b.mx);
    a.fmn = fminf(a.fmn, b.fmn);
    a.fmx = fmaxf(a.fmx, b.fmx);
    a.w = combine(a.w, b.w);
}

__device__ inline SeedPart warpReduce(SeedPart p) {
    for (int o = 16; o > 0; o >>= 1) {
        SeedPart q;
        q.finite = shfl(p.finite, o);
        q.nan = shfl(p.nan, o);
        q.under = shfl(p.under, o);
        q.over = shfl(p.over, o);
        q.mn = __shfl_down_sync(0xffffffffu, p.mn, o);
        q.mx = __shfl_down_sync(0xffffffffu, p.mx, o);
        q.fmn = __shfl_down_sync(0xffffffffu, p.fmn, o);
        q.fmx = __shfl_down_sync(0xffffffffu, p.fmx, o);
        q.w.n = shfl(p.w.n, o);
        q.w.mean = shfl(p.w.mean, o);
        q.w.m2 = shfl(p.w.m2, o);
        merge(p, q);
    }
    return p;
}

__device__ inline int histBin(float v, float lo, float hi, int bins) {
    // at::histc's CUDA formula (input, edges and bin count in float); the top edge falls in the last bin.
    int b = static_cast<int>((v - lo) * static_cast<float>(bins) / (hi - lo));
    if (b >= bins) b = bins - 1;
    return b < 0 ? 0 : b;
}

__global__ void seedScalarsKernel(const float* __restrict__ x, int64_t n, float lo, float hi, int bins,
                                  bool sharedHist, double* __restrict__ records, double* __restrict__ hist) {
    extern __shared__ unsigned int shHist[];
    // Raw storage: a __shared__ object may not be constructed.
    __shared__ alignas(SeedPart) unsigned char warpRaw[sizeof(SeedPart) * kWarps];
    SeedPart* warpParts = reinterpret_cast<SeedPart*>(warpRaw);
    if (bins > 0 && sharedHist) {
        for (int b = threadIdx.x; b < bins; b += blockDim.x) shHist[b] = 0;
        __syncthreads();
    }
    SeedPart p;
    unsigned long long finite = 0, nan = 0, under = 0, over = 0;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        if (isnan(v)) {
            ++nan;
            continue;
        }
        p.mn = fminf(p.mn, v);
        p.mx = fmaxf(p.mx, v);
        push(p.w, static_cast<double>(v));
        if (isinf(v)) continue;
        ++finite;
        p.fmn = fminf(p.fmn, v);
        p.fmx = fmaxf(p.fmx, v);
        if (bins > 0) {
            if (v < lo) {
                ++under;
            } else if (v > hi) {
                ++over;
            } else {
                const int b = histBin(v, lo, hi, bins);
                if (sharedHist) atomicAdd(&shHist[b], 1u);
                else atomicAdd(&hist[b], 1.0);
            }
        }
    }
    // NaN values take part in the Welford sums too (ATen's mean and std become NaN).
    if (nan > 0) push(p.w, static_cast<double>(NAN));
    p.finite = static_cast<double>(finite);
    p.nan = static_cast<double>(nan);
    p.under = static_cast<double>(under);
    p.over = static_cast<double>(over);
    p = warpReduce(p);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) warpParts[warp] = p;
    __syncthreads();
    if (threadIdx.x == 0) {
        SeedPart t = warpParts[0];
        for (int k = 1; k < kWarps; ++k) merge(t, warpParts[k]);
        double* r = records + static_cast<int64_t>(blockIdx.x) * kSeedFields;
        r[kFinite] = t.finite;
        r[kNaN] = t.nan;
        r[kMin] = t.mn;
        r[kMax] = t.mx;
        r[kFiniteMin] = t.fmn;
        r[kFiniteMax] = t.fmx;
        r[kUnder] = t.under;
        r[kOver] = t.over;
        r[kCount] = t.w.n;
        r[kMean] = t.w.mean;
        r[kM2] = t.w.m2;
    }
    if (bins > 0 && sharedHist) {
        __syncthreads();
        for (int b = threadIdx.x; b < bins; b += blockDim.x)
            if (shHist[b]) atomicAdd(&hist[b], static_cast<double>(shHist[b]));
    }
}

// --- the per-element std at the end ---------------------------------------------------------------

// ATen: (m2 / (n - 1)).clamp_min_(0).sqrt_(), whose division by a scalar multiplies by its
// reciprocal (inv = 1 / (n - 1)); NaN stays NaN.
__device__ inline double stdOf(double m2, double inv) {
    const double v = m2 * inv;
    return sqrt(v < 0.0 ? 0.0 : v);
}

struct StdPart {
    double nonFinite = 0, nan = 0, mx = -INFINITY, sum = 0;
    float fmx = -INFINITY;
};

__global__ void stdSummaryKernel(const double* __restrict__ m2, int64_t n, double inv, double* __restrict__ records) {
    __shared__ alignas(StdPart) unsigned char warpRaw[sizeof(StdPart) * kWarps];
    StdPart* warpParts = reinterpret_cast<StdPart*>(warpRaw);
    StdPart p;
    unsigned long long nonFinite = 0, nan = 0;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double s = stdOf(m2[i], inv);
        p.sum += s;
        if (isnan(s)) {
            ++nan;
            ++nonFinite;
            continue;
        }
        p.mx = fmax(p.mx, s);
        if (isinf(s)) {
            ++nonFinite;
            continue;
        }
        p.fmx = fmaxf(p.fmx, static_cast<float>(s));
    }
    p.nonFinite = static_cast<double>(nonFinite);
    p.nan = static_cast<double>(nan);
    for (int o = 16; o > 0; o >>= 1) {
        p.nonFinite += shfl(p.nonFinite, o);
        p.nan += shfl(p.nan, o);
        p.mx = fmax(p.mx, shfl(p.mx, o));
        p.sum += shfl(p.sum, o);
        p.fmx = fmaxf(p.fmx, __shfl_down_sync(0xffffffffu, p.fmx, o));
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) warpParts[warp] = p;
    __syncthreads();
    if (threadIdx.x == 0) {
        StdPart t = warpParts[0];
        for (int k = 1; k < kWarps; ++k) {
            t.nonFinite += warpParts[k].nonFinite;
            t.nan += warpParts[k].nan;
            t.mx = fmax(t.mx, warpParts[k].mx);
            t.sum += warpParts[k].sum;
            t.fmx = fmaxf(t.fmx, warpParts[k].fmx);
        }
        double* r = records + static_cast<int64_t>(blockIdx.x) * kStdFields;
        r[kStdNonFinite] = t.nonFinite;
        r[kStdNaN] = t.nan;
        r[kStdMax] = t.mx;
        r[kStdSum] = t.sum;
        r[kStdFloatMax] = t.fmx;
    }
}

__global__ void stdHistogramKernel(const double* __restrict__ m2, int64_t n, double inv, float hi, int bins,
                                   bool sharedHist, double* __restrict__ hist) {
    extern __shared__ unsigned int shHist[];
    if (sharedHist) {
        for (int b = threadIdx.x; b < bins; b += blockDim.x) shHist[b] = 0;
        __syncthreads();
    }
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double s = stdOf(m2[i], inv);
        if (!isfinite(s)) continue;
        const float v = static_cast<float>(s); // ATen: the finite std values cast to float32
        if (!(v >= 0.0f && v <= hi)) continue;
        const int b = histBin(v, 0.0f, hi, bins);
        if (sharedHist) atomicAdd(&shHist[b], 1u);
        else atomicAdd(&hist[b], 1.0);
    }
    if (sharedHist) {
        __syncthreads();
        for (int b = threadIdx.x; b < bins; b += blockDim.x)
            if (shHist[b]) atomicAdd(&hist[b], static_cast<double>(shHist[b]));
    }
}

__global__ void probeKernel(int* out) {
    if (out) *out = 1;
}

} // namespace

bool usable() {
    // Per device: 0 unknown, 1 usable, -1 not (no image of ours for its architecture).
    static std::atomic<int> state[64] = {};
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return false;
    int s = state[dev].load(std::memory_order_relaxed);
    if (s == 0) {
        probeKernel<<<1, 1>>>(nullptr);
        s = cudaGetLastError() == cudaSuccess ? 1 : -1;
        state[dev].store(s, std::memory_order_relaxed);
    }
    return s > 0;
}

int blocksFor(int64_t n) {
    const int64_t want = (n + kThreads * 8 - 1) / (kThreads * 8);
    const int64_t cap = static_cast<int64_t>(smCount()) * 4;
    return static_cast<int>(want < 1 ? 1 : (want < cap ? want : cap));
}

int welford(const float* x, double* mean, double* m2, int64_t n, int64_t count, void* stream) {
    if (n <= 0) return 0;
    welfordKernel<<<elementwiseBlocks(n), kThreads, 0, asStream(stream)>>>(x, mean, m2, n, count,
                                                                           1.0 / static_cast<double>(count));
    return lastLaunchError();
}

int seedScalars(const float* x, int64_t n, float lo, float hi, int bins, double* records, double* hist,
                void* stream) {
    const bool shared = bins > 0 && bins <= kSharedBins;
    if (bins > 0) {
        if (const cudaError_t e = cudaMemsetAsync(hist, 0, sizeof(double) * static_cast<size_t>(bins), asStream(stream)))
            return static_cast<int>(e);
    }
    const size_t sh = shared ? sizeof(unsigned int) * static_cast<size_t>(bins) : 0;
    seedScalarsKernel<<<blocksFor(n), kThreads, sh, asStream(stream)>>>(x, n, lo, hi, bins, shared, records, hist);
    return lastLaunchError();
}

int stdSummary(const double* m2, int64_t n, int64_t count, double* records, void* stream) {
    stdSummaryKernel<<<blocksFor(n), kThreads, 0, asStream(stream)>>>(m2, n, 1.0 / static_cast<double>(count - 1), records);
    return lastLaunchError();
}

int stdHistogram(const double* m2, int64_t n, int64_t count, float hi, int bins, double* hist, void* stream) {
    if (bins <= 0) return 0;
    if (const cudaError_t e = cudaMemsetAsync(hist, 0, sizeof(double) * static_cast<size_t>(bins), asStream(stream)))
        return static_cast<int>(e);
    const bool shared = bins <= kSharedBins;
    const size_t sh = shared ? sizeof(unsigned int) * static_cast<size_t>(bins) : 0;
    stdHistogramKernel<<<blocksFor(n), kThreads, sh, asStream(stream)>>>(m2, n, 1.0 / static_cast<double>(count - 1), hi,
                                                                        bins, shared, hist);
    return lastLaunchError();
}

SeedSummary combineSeed(const double* records, int blocks) {
    SeedSummary s;
    s.min = INFINITY;
    s.max = -INFINITY;
    s.finiteMin = INFINITY;
    s.finiteMax = -INFINITY;
    Moments w;
    for (int b = 0; b < blocks; ++b) {
        const double* r = records + static_cast<int64_t>(b) * kSeedFields;
        s.finite += r[kFinite];
        s.nan += r[kNaN];
        s.min = std::fmin(s.min, r[kMin]);
        s.max = std::fmax(s.max, r[kMax]);
        s.finiteMin = std::fmin(s.finiteMin, r[kFiniteMin]);
        s.finiteMax = std::fmax(s.finiteMax, r[kFiniteMax]);
        s.under += r[kUnder];
        s.over += r[kOver];
        w = combine(w, Moments{r[kCount], r[kMean], r[kM2]});
    }
    s.count = w.n;
    s.mean = w.mean;
    s.m2 = w.m2;
    return s;
}

StdSummary combineStd(const double* records, int blocks) {
    StdSummary s;
    s.max = -INFINITY;
    s.floatMax = -INFINITY;
    for (int b = 0; b < blocks; ++b) {
        const double* r = records + static_cast<int64_t>(b) * kStdFields;
        s.nonFinite += r[kStdNonFinite];
        s.nan += r[kStdNaN];
        s.max = std::fmax(s.max, r[kStdMax]);
        s.sum += r[kStdSum];
        s.floatMax = std::fmax(s.floatMax, r[kStdFloatMax]);
    }
    return s;
}

const char* errorString(int err) { return cudaGetErrorString(static_cast<cudaError_t>(err)); }

} // namespace ks::fused
