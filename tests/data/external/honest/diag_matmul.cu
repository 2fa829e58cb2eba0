// SPDX-License-Identifier: MIT
// Honest L1-12 diag(A) @ B as the broadcast C[i, j] = A[i] * B[i, j] (A [N], B [N, M]); one product per element, float32.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>

__global__ void diag_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int64_t total, int64_t m) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
        c[i] = a[i / m] * b[i];
}

torch::Tensor forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "A and B must be float32");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.dim() == 1 && B.dim() == 2 && A.size(0) == B.size(0), "need A [N] and B [N, M]");
    const at::cuda::OptionalCUDAGuard guard(A.device());
    torch::Tensor C = torch::empty_like(B);
    const int64_t total = B.numel();
    if (total == 0) return C;
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<int64_t>((total + threads - 1) / threads, 65536));
    diag_matmul_kernel<<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), total, B.size(1));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return C;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "diag(A) @ B as a broadcast (honest, float32)"); }
