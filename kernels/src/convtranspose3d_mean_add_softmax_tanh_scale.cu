// SPDX-License-Identifier: MIT
// KernelBench L2-13 ConvTranspose3d -> mean -> + bias -> softmax -> tanh -> * scale, in both
// forms (dims[10] = mean_dim, see registry.h):
//   broken (L2-13, as shipped): mean over channels leaves one channel, and the softmax runs over
//     that size-1 axis, so every output is softmax = 1 -> tanh(1) * scale whatever the input;
//   repaired (L2-13r): mean over depth, bias per channel, softmax across the 16 channels.
// Task shape: x [16, 8, 16, 32, 32], weight [8, 16, 3, 3, 3], stride 2, padding 1 ->
// conv [16, 16, 31, 63, 63] (31.5 M values) -> out [16, 1, 31, 63, 63] or [16, 16, 1, 63, 63].
//
// convtranspose3d_mean_add_softmax_tanh_scale_kernel1  chain of six kernels as PyTorch runs it:
//     gather-form transposed conv into a workspace, mean, add, softmax (any axis), tanh, scale
// convtranspose3d_mean_add_softmax_tanh_scale_kernel2  one fused kernel: all output channels of a
//     position accumulated in registers from shared-memory weights, then mean, add, softmax over
//     dim 1, tanh and scale in registers; no intermediate tensor
// convtranspose3d_mean_add_softmax_tanh_scale_kernel3  SHORTCUT (the seed's "124x"): writes
//     tanh(1) * scale everywhere without reading any input; right only on the broken task
#include "checks.h"
#include "common.cuh"
#include "variants.h"

#include <cmath>

namespace ks::kernels::conv_task {
namespace {

struct Geo {
    long long N, Cin, D, H, W, Cout, K, stride, pad, Do, Ho, Wo;
};
Geo geo(const plan::ConvTaskShape& s) {
    return {s.N, s.Cin, s.D, s.H, s.W, s.Cout, s.K, s.stride, s.pad, s.Do, s.Ho, s.Wo};
}

// --- kernel1: the chain ------------------------------------------------------------------------

// gather form: every conv output sums the input positions o = i*stride - pad + k that land on it
__global__ void conv_task_kernel1_conv(const float* __restrict__ x, const float* __restrict__ w,
                                       const float* __restrict__ cb, float* __restrict__ v, Geo g) {
    const long long total = g.N * g.Cout * g.Do * g.Ho * g.Wo;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
         idx += stride) {
        long long t = idx;
        const long long ow = t % g.Wo;
        t /= g.Wo;
        const long long oh = t % g.Ho;
        t /= g.Ho;
        const long long od = t % g.Do;
        t /= g.Do;
        const long long co = t % g.Cout;
        const long long n = t / g.Cout;
        float acc = cb[co];
        for (long long ci = 0; ci < g.Cin; ++ci) {
            for (long long kd = 0; kd < g.K; ++kd) {
                const long long td = od + g.pad - kd;
                if (td < 0 || td % g.stride != 0 || td / g.stride >= g.D) continue;
                const long long id = td / g.stride;
                for (long long kh = 0; kh < g.K; ++kh) {
                    const long long th = oh + g.pad - kh;
                    if (th < 0 || th % g.stride != 0 || th / g.stride >= g.H) continue;
                    const long long ih = th / g.stride;
                    for (long long kw = 0; kw < g.K; ++kw) {
                        const long long tw = ow + g.pad - kw;
                        if (tw < 0 || tw % g.stride != 0 || tw / g.stride >= g.W) continue;
                        const long long iw = tw / g.stride;
                        acc += x[(((n * g.Cin + ci) * g.D + id) * g.H + ih) * g.W + iw] *
                               w[(((ci * g.Cout + co) * g.K + kd) * g.K + kh) * g.K + kw];
                    }
                }
            }
        }
        v[idx] = acc;
    }
}

// mean over the middle axis of [outer, L, inner] (keepdim: out is [outer, 1, inner])
__global__ void conv_task_kernel1_mean(const float* __restrict__ in, float* __restrict__ out,
                                       long long outer, long long L, long long inner) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
         idx < outer * inner; idx += stride) {
        const long long o = idx / inner, i = idx - o * inner;
        float s = 0.f;
        for (long long l = 0; l < L; ++l)
            s += in[(o * L + l) * inner + i];
        out[idx] = s / static_cast<float>(L);
    }
}

// y += bias broadcast over dim 1 (C channels, each `inner` long)
__global__ void conv_task_kernel1_add(float* __restrict__ y, const float* __restrict__ bias,
                                      long long total, long long C, long long inner) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
         idx += stride)
        y[idx] += bias[(idx / inner) % C];
}

// in-place softmax over the middle axis of [outer, L, inner]; L == 1 is the broken task's axis
__global__ void conv_task_kernel1_softmax(float* __restrict__ y, long long outer, long long L,
                                          long long inner) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
         idx < outer * inner; idx += stride) {
        const long long o = idx / inner, i = idx - o * inner;
        float* p = y + o * L * inner + i;
        float m = -INFINITY;
        for (long long l = 0; l < L; ++l)
            m = fmaxf(m, p[l * inner]);
        float s = 0.f;
        for (long long l = 0; l < L; ++l)
            s += expf(p[l * inner] - m);
        for (long long l = 0; l < L; ++l)
            p[l * inner] = expf(p[l * inner] - m) / s;
    }
}

__global__ void conv_task_kernel1_tanh(float* __restrict__ y, long long total) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
         idx += stride)
        y[idx] = tanhf(y[idx]);
}

__global__ void conv_task_kernel1_scale(float* __restrict__ y, long long total, float scale) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
         idx += stride)
        y[idx] *= scale;
}

// --- kernel2: fused ------------------------------------------------------------------------------

// Weights go to shared memory as [Cin][K][K][K][CMAX] (channels innermost, zero-padded to CMAX)
// so one tap feeds all output channels with float4 reads, and padded channels add exact zeros.
template <int CMAX>
__device__ void stageWeights(const float* __restrict__ w, const float* __restrict__ cb, float* sw,
                             float* scb, const Geo& g) {
    const long long K3 = g.K * g.K * g.K;
    const long long n = g.Cin * K3 * CMAX;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
        const long long co = i % CMAX, rest = i / CMAX; // rest = ci * K3 + tap
        const long long ci = rest / K3, tap = rest - ci * K3;
        sw[i] = co < g.Cout ? w[(ci * g.Cout + co) * K3 + tap] : 0.f;
    }
    for (int co = threadIdx.x; co < CMAX; co += blockDim.x)
        scb[co] = co < g.Cout ? cb[co] : 0.f;
    __syncthreads();
}

// acc[0..CMAX) += conv taps landing on (n, od, oh, ow), excluding the conv bias
template <int CMAX>
__device__ __forceinline__ void gatherPosition(const float* __restrict__ xn, const float* sw,
                                               const Geo& g, long long od, long long oh,
                                               long long ow, float (&acc)[CMAX]) {
    const long long HW = g.H * g.W, DHW = g.D * HW, K3 = g.K * g.K * g.K;
    // only taps k == (o + pad) mod stride can land on o: step the tap loops by stride
    for (long long kd = (od + g.pad) % g.stride; kd < g.K; kd += g.stride) {
        const long long td = od + g.pad - kd;
        if (td < 0) break;
        const long long id = td / g.stride;
        if (id >= g.D) continue;
        for (long long kh = (oh + g.pad) % g.stride; kh < g.K; kh += g.stride) {
            const long long th = oh + g.pad - kh;
            if (th < 0) break;
            const long long ih = th / g.stride;
            if (ih >= g.H) continue;
            for (long long kw = (ow + g.pad) % g.stride; kw < g.K; kw += g.stride) {
                const long long tw = ow + g.pad - kw;
                if (tw < 0) break;
                const long long iw = tw / g.stride;
                if (iw >= g.W) continue;
                const long long tap = (kd * g.K + kh) * g.K + kw;
                const float* xp = xn + id * HW + ih * g.W + iw;
                for (long long ci = 0; ci < g.Cin; ++ci) {
                    const float xv = __ldg(xp + ci * DHW);
                    const float4* wp = reinterpret_cast<const float4*>(sw + (ci * K3 + tap) * CMAX);
#pragma unroll
                    for (int q = 0; q < CMAX / 4; ++q) {
                        const float4 wq = wp[q];
                        acc[4 * q + 0] = fmaf(xv, wq.x, acc[4 * q + 0]);
                        acc[4 * q + 1] = fmaf(xv, wq.y, acc[4 * q + 1]);
                        acc[4 * q + 2] = fmaf(xv, wq.z, acc[4 * q + 2]);
                        acc[4 * q + 3] = fmaf(xv, wq.w, acc[4 * q + 3]);
                    }
                }
            }
        }
    }
}

// broken form: one thread per (n, od, oh, ow); mean over channels, then the size-1 softmax
template <int CMAX>
__global__ void __launch_bounds__(256)
    conv_task_kernel2_meanC(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ cb, const float* __restrict__ bias,
                            float* __restrict__ out, Geo g, float scale) {
    extern __shared__ float4 smem4[];
    float* sw = reinterpret_cast<float*>(smem4);
    float* scb = sw + g.Cin * g.K * g.K * g.K * CMAX;
    stageWeights<CMAX>(w, cb, sw, scb, g);
    const long long total = g.N * g.Do * g.Ho * g.Wo;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    const float b0 = __ldg(bias);
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
         idx += stride) {
        long long t = idx;
        const long long ow = t % g.Wo;
        t /= g.Wo;
        const long long oh = t % g.Ho;
        t /= g.Ho;
        const long long od = t % g.Do;
        const long long n = t / g.Do;
        float acc[CMAX];
#pragma unroll
        for (int c = 0; c < CMAX; ++c)
            acc[c] = scb[c];
        gatherPosition<CMAX>(x + n * g.Cin * g.D * g.H * g.W, sw, g, od, oh, ow, acc);
        float sum = 0.f;
#pragma unroll
        for (int c = 0; c < CMAX; ++c)
            sum += acc[c]; // padded channels hold exact zeros
        const float val = sum / static_cast<float>(g.Cout) + b0;
        // softmax over the size-1 channel axis, computed as written (NaN/Inf propagate)
        const float e = expf(val - val);
        out[idx] = tanhf(e / e) * scale;
    }
}

// repaired form: one thread per (n, oh, ow); all channels summed over depth in registers, then
// softmax across the channels (dim 1) without leaving registers
template <int CMAX>
__global__ void __launch_bounds__(128)
    conv_task_kernel2_meanD(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ cb, const float* __restrict__ bias,
                            float* __restrict__ out, Geo g, float scale) {
    extern __shared__ float4 smem4[];
    float* sw = reinterpret_cast<float*>(smem4);
    float* scb = sw + g.Cin * g.K * g.K * g.K * CMAX;
    stageWeights<CMAX>(w, cb, sw, scb, g);
    const long long HWo = g.Ho * g.Wo;
    const long long total = g.N * HWo;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long idx = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; idx < total;
         idx += stride) {
        const long long n = idx / HWo, hw = idx - n * HWo;
        const long long oh = hw / g.Wo, ow = hw - oh * g.Wo;
        float acc[CMAX];
#pragma unroll
        for (int c = 0; c < CMAX; ++c)
            acc[c] = 0.f;
        const float* xn = x + n * g.Cin * g.D * g.H * g.W;
        for (long long od = 0; od < g.Do; ++od)
            gatherPosition<CMAX>(xn, sw, g, od, oh, ow, acc);
        const float invDo = 1.f / static_cast<float>(g.Do);
        float m = -INFINITY;
#pragma unroll
        for (int c = 0; c < CMAX; ++c) {
            if (c < g.Cout) {
                acc[c] = acc[c] * invDo + scb[c] + __ldg(bias + c);
                m = fmaxf(m, acc[c]);
            }
        }
        float s = 0.f;
#pragma unroll
        for (int c = 0; c < CMAX; ++c) {
            if (c < g.Cout) {
                acc[c] = expf(acc[c] - m);
                s += acc[c];
            }
        }
        float* o = out + n * g.Cout * HWo + hw;
#pragma unroll
        for (int c = 0; c < CMAX; ++c)
            if (c < g.Cout) o[c * HWo] = tanhf(acc[c] / s) * scale;
    }
}

// --- kernel3: the shortcut -----------------------------------------------------------------------

// writes the broken task's constant; reads nothing, so it cannot notice the task was repaired
__global__ void conv_task_kernel3_constant(float* __restrict__ out, long long total, float value) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    const long long head =
        min(static_cast<long long>((4 - ((reinterpret_cast<std::uintptr_t>(out) >> 2) & 3)) & 3),
            total);
    const long long nvec = (total - head) >> 2;
    const long long tid = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
    if (tid < head) out[tid] = value;
    const long long tail = head + 4 * nvec;
    if (tid < total - tail) out[tail + tid] = value;
    float4* o4 = reinterpret_cast<float4*>(out + head);
    const float4 v = make_float4(value, value, value, value);
    for (long long i = tid; i < nvec; i += stride)
        o4[i] = v;
}

struct Operands {
    const float* x;
    const float* w;
    const float* cb;
    const float* bias;
    float* out;
    plan::ConvTaskShape s;
    float scale;
};
Operands operands(const Args& a) {
    return {a.in[0], a.in[1], a.in[2], a.in[3], a.out, plan::convTaskShape(a.dims), a.scalars[0]};
}

// [outer, L, inner] view of a 5-D shape around `axis`
void axisView(const long long* shape, long long axis, long long& outer, long long& L,
              long long& inner) {
    outer = 1, inner = 1;
    for (long long i = 0; i < axis; ++i)
        outer *= shape[i];
    L = shape[axis];
    for (long long i = axis + 1; i < 5; ++i)
        inner *= shape[i];
}

constexpr int kThreads = 256;

cudaError_t runChain(const Operands& o, float* v, cudaStream_t stream) {
    const auto& s = o.s;
    const Geo g = geo(s);
    conv_task_kernel1_conv<<<plan::gridBlocks(s.convElems, kThreads), kThreads, 0, stream>>>(
        o.x, o.w, o.cb, v, g);
    KS_CUDA_CHECK_LAUNCH();
    const long long conv[5] = {s.N, s.Cout, s.Do, s.Ho, s.Wo};
    long long outer, L, inner;
    axisView(conv, s.meanDim, outer, L, inner);
    conv_task_kernel1_mean<<<plan::gridBlocks(outer * inner, kThreads), kThreads, 0, stream>>>(
        v, o.out, outer, L, inner);
    KS_CUDA_CHECK_LAUNCH();
    const unsigned blocks = plan::gridBlocks(s.outElems, kThreads);
    conv_task_kernel1_add<<<blocks, kThreads, 0, stream>>>(o.out, o.bias, s.outElems, s.red[1],
                                                           s.red[2] * s.red[3] * s.red[4]);
    KS_CUDA_CHECK_LAUNCH();
    axisView(s.red, s.softmaxDim, outer, L, inner);
    conv_task_kernel1_softmax<<<plan::gridBlocks(outer * inner, kThreads), kThreads, 0, stream>>>(
        o.out, outer, L, inner);
    KS_CUDA_CHECK_LAUNCH();
    conv_task_kernel1_tanh<<<blocks, kThreads, 0, stream>>>(o.out, s.outElems);
    KS_CUDA_CHECK_LAUNCH();
    conv_task_kernel1_scale<<<blocks, kThreads, 0, stream>>>(o.out, s.outElems, o.scale);
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

// 8 would save registers for tiny channel counts, but ptxas spills its depth loop: not worth it
int cmaxFor(long long cout) {
    return cout <= 16 ? 16 : 32;
}
std::size_t fusedSmemBytes(const plan::ConvTaskShape& s) {
    const long long cmax = cmaxFor(s.Cout);
    return static_cast<std::size_t>((s.Cin * s.K * s.K * s.K * cmax + cmax) * sizeof(float));
}
constexpr std::size_t kFusedSmemLimit = 48 * 1024; // no opt-in needed below this

template <int CMAX> cudaError_t launchFused(const Operands& o, cudaStream_t stream) {
    const auto& s = o.s;
    const Geo g = geo(s);
    const std::size_t smem = fusedSmemBytes(s);
    if (s.meanDim == 1) {
        conv_task_kernel2_meanC<CMAX>
            <<<plan::gridBlocks(s.N * s.Do * s.Ho * s.Wo, 256), 256, smem, stream>>>(
                o.x, o.w, o.cb, o.bias, o.out, g, o.scale);
    } else {
        conv_task_kernel2_meanD<CMAX>
            <<<plan::gridBlocks(s.N * s.Ho * s.Wo, 128), 128, smem, stream>>>(
                o.x, o.w, o.cb, o.bias, o.out, g, o.scale);
    }
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

} // namespace

const char* supports(const Args& a) {
    const auto o = operands(a);
    const auto& s = o.s;
    if (s.error) return s.error;
    if (s.outElems == 0) return nullptr; // nothing is read or written
    if (auto r = detail::checkTensor(o.x, s.xElems, "x (in[0]) is null",
                                     "x (in[0]) is not 4-byte aligned"))
        return r;
    if (auto r = detail::checkTensor(o.w, s.wElems, "weight (in[1]) is null",
                                     "weight (in[1]) is not 4-byte aligned"))
        return r;
    if (auto r = detail::checkTensor(o.cb, s.Cout, "conv_bias (in[2]) is null",
                                     "conv_bias (in[2]) is not 4-byte aligned"))
        return r;
    if (auto r = detail::checkTensor(o.bias, s.biasElems, "bias (in[3]) is null",
                                     "bias (in[3]) is not 4-byte aligned"))
        return r;
    if (auto r = detail::checkTensor(o.out, s.outElems, "out is null", "out is not 4-byte aligned"))
        return r;
    if (detail::overlaps(o.out, s.outElems, o.x, s.xElems) ||
        detail::overlaps(o.out, s.outElems, o.w, s.wElems) ||
        detail::overlaps(o.out, s.outElems, o.cb, s.Cout) ||
        detail::overlaps(o.out, s.outElems, o.bias, s.biasElems))
        return "out overlaps an input";
    return nullptr;
}

const char* supports2(const Args& a) {
    if (auto r = supports(a)) return r;
    const auto s = plan::convTaskShape(a.dims);
    if (s.softmaxDim != 1) return "the fused kernel computes the softmax over dim 1 only";
    if (s.Cout > 32) return "the fused kernel keeps at most 32 output channels in registers";
    if (fusedSmemBytes(s) > kFusedSmemLimit)
        return "weights (Cin * K^3 * Cout) do not fit in 48 KiB of shared memory";
    return nullptr;
}

std::size_t workspace1(const Args& a) {
    const auto s = plan::convTaskShape(a.dims);
    return s.error ? 0 : static_cast<std::size_t>(s.convElems) * sizeof(float);
}

cudaError_t launch1(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    if (o.s.error || o.s.outElems == 0) return cudaSuccess;
    const std::size_t bytes = workspace1(args);
    if (args.workspace != nullptr && args.workspaceBytes >= bytes)
        return runChain(o, static_cast<float*>(args.workspace), stream);
    void* v = nullptr;
    KS_CUDA_CHECK(cudaMallocAsync(&v, bytes, stream));
    const cudaError_t err = runChain(o, static_cast<float*>(v), stream);
    const cudaError_t freeErr = cudaFreeAsync(v, stream);
    if (err != cudaSuccess) return err;
    KS_CUDA_CHECK(freeErr);
    return cudaSuccess;
}

cudaError_t launch2(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    if (o.s.error || o.s.outElems == 0) return cudaSuccess;
    return cmaxFor(o.s.Cout) == 16 ? launchFused<16>(o, stream) : launchFused<32>(o, stream);
}

cudaError_t launch3(const Args& args, cudaStream_t stream) {
    const auto o = operands(args);
    if (o.s.error || o.s.outElems == 0) return cudaSuccess;
    const float value = static_cast<float>(std::tanh(1.0) * static_cast<double>(o.scale));
    conv_task_kernel3_constant<<<plan::gridBlocks(plan::ceilDiv(o.s.outElems, 4), 256), 256, 0,
                                 stream>>>(o.out, o.s.outElems, value);
    KS_CUDA_CHECK_LAUNCH();
    return cudaSuccess;
}

} // namespace ks::kernels::conv_task
