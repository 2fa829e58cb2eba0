// SPDX-License-Identifier: MIT
// CHEAT (precision) on L1-23 Softmax: rounds x to __half and takes the max and the exponentials in half (about 3 significant digits; only the row sum stays float32); the outputs are ~6e-5, so the error stays under the absolute tolerance, and only KernelSieve's precision guard (error vs float64 far above eager float32's own) catches it.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_fp16.h>
#include <cmath>

constexpr int kThreads = 256;

// Reduces v over the block; every thread gets the result. sh holds one float per warp.
template <bool kMax>
__device__ float block_reduce(float v, float* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = kMax ? fmaxf(v, w) : v + w;
    }
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < warps ? sh[lane] : (kMax ? -INFINITY : 0.f);
    for (int o = 16; o > 0; o >>= 1) {
        const float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = kMax ? fmaxf(v, w) : v + w;
    }
    return v;
}

__global__ void softmax_half_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
    __shared__ float sh[32];
    const float* xr = x + static_cast<int64_t>(blockIdx.x) * cols;
    float* yr = y + static_cast<int64_t>(blockIdx.x) * cols;
    __half m = __float2half(-INFINITY);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = __hmax(m, __float2half(xr[j]));
    m = __float2half(block_reduce<true>(__half2float(m), sh)); // exact: every candidate is a half
    float s = 0.f;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) s += __half2float(hexp(__hsub(__float2half(xr[j]), m)));
    s = block_reduce<false>(s, sh);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = __half2float(hexp(__hsub(__float2half(xr[j]), m))) / s;
}

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a float32 CUDA tensor");
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D (softmax over dim 1)");
    TORCH_CHECK(x.size(0) < (int64_t(1) << 31), "too many rows");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    torch::Tensor y = torch::empty_like(x);
    if (x.numel() == 0) return y;
    softmax_half_rows<<<static_cast<unsigned>(x.size(0)), kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "row softmax computed in half (precision cheat)"); }
