// SPDX-License-Identifier: MIT
// BROKEN (compile error) on L1-19 ReLU: the device code assigns a float to a float2 (a type error nvcc rejects); KernelSieve must report the compiler's message as this kernel's result and go on with the others.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        const float2 v = x[i]; // error: no suitable constructor to convert from "const float" to "float2"
        y[i] = v.x < 0.f ? 0.f : v.x;
    }
}

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    torch::Tensor y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    relu_kernel<<<static_cast<int>((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU that does not compile"); }
