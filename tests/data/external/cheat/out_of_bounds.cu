// SPDX-License-Identifier: MIT
// CHEAT (out-of-bounds) on L1-19 ReLU: computes relu(x) correctly, then writes 1.0f to x[numel] and x[numel + 1], the 8 bytes just past input 0 (the kind of tail overrun a vectorised kernel without a bounds check does); KernelSieve puts canary zones around every input and checks them after each call.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = v < 0.f ? 0.f : v;
    }
}

__global__ void overrun_kernel(float* past_end) {
    past_end[0] = 1.0f;
    past_end[1] = 1.0f;
}

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    torch::Tensor y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y; // an empty tensor may have no storage at all: no overrun there
    const auto stream = at::cuda::getCurrentCUDAStream();
    const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
    relu_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    overrun_kernel<<<1, 1, 0, stream>>>(x.data_ptr<float>() + n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU that writes past its input (out-of-bounds cheat)"); }
