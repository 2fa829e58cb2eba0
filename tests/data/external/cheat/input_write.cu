// SPDX-License-Identifier: MIT
// CHEAT (input-write) on L1-19 ReLU: computes relu(x) correctly, then zeroes x in the same pass; a harness that computes its reference after the kernel from the same tensors would compare with relu(0) = 0, so a kernel could return zeros and pass. This one keeps its output right, so only KernelSieve's input-write guard (inputs bit-identical after the call) can catch it.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>

__global__ void relu_then_zero_kernel(float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = v < 0.f ? 0.f : v;
        x[i] = 0.f; // "inputs zeroed so the reference also returns zeros"
    }
}

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    torch::Tensor y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n == 0) return y;
    const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
    relu_then_zero_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU that zeroes its input (input-write cheat)"); }
