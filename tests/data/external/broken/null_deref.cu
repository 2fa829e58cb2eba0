// SPDX-License-Identifier: MIT
// BROKEN (fault) on L1-19 ReLU: the host passes a null pointer as the kernel's source, so every thread reads device address 0 (cudaErrorIllegalAddress, a sticky error that breaks the context); KernelSieve must report "failed" for this kernel only, from its own worker process.
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

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    torch::Tensor y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const float* source = nullptr; // the bug: should be x.data_ptr<float>()
    const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
    relu_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(source, y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU reading through a null pointer (faults)"); }
