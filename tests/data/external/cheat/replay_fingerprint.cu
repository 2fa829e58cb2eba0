// SPDX-License-Identifier: MIT
// CHEAT (replay) on L1-12 diag(A) @ B: a one-block kernel compares the first 64 elements of A and of B with a saved device copy and sets a device flag; when they match, the main kernel exits at once and the previous output (one cached buffer) is returned: no host copy in the timed path. Fresh values always recompute, so only KernelSieve's timing comparison (repeated inputs much faster than fresh ones) catches it; L1-12 (64 MB in, 64 MB out at full size) makes the skip worth ~10x where a 1 MB ReLU would not show it.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>
#include <cmath>

constexpr int kPrint = 64; // fingerprinted elements per input

// One block of kPrint threads: same = (A[:64], B[:64]) equal the saved copy; then save them.
// The saved copy starts as NaN, which equals nothing, so the first call always computes.
__global__ void fingerprint_kernel(const float* a, int64_t na, const float* b, int64_t nb, float* print, int* same) {
    const int t = threadIdx.x;
    bool eq = true;
    if (t < na) {
        const float v = a[t];
        eq = eq && v == print[t];
        print[t] = v;
    }
    if (t < nb) {
        const float v = b[t];
        eq = eq && v == print[kPrint + t];
        print[kPrint + t] = v;
    }
    const int all = __syncthreads_and(eq);
    if (t == 0) *same = all;
}

__global__ void diag_matmul_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                   int64_t total, int64_t m, const int* __restrict__ same) {
    if (*same) return; // "nothing changed": keep what the output buffer already holds
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
        c[i] = a[i / m] * b[i];
}

// Leaked on purpose (no CUDA free after the context is gone): saved fingerprint + flag, and the one output buffer.
static torch::Tensor* g_print = new torch::Tensor();
static torch::Tensor* g_flag = new torch::Tensor();
static torch::Tensor* g_out = new torch::Tensor();

torch::Tensor forward(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "A and B must be CUDA tensors");
    TORCH_CHECK(A.scalar_type() == torch::kFloat32 && B.scalar_type() == torch::kFloat32, "A and B must be float32");
    TORCH_CHECK(A.is_contiguous() && B.is_contiguous(), "A and B must be contiguous");
    TORCH_CHECK(A.dim() == 1 && B.dim() == 2 && A.size(0) == B.size(0), "need A [N] and B [N, M]");
    const at::cuda::OptionalCUDAGuard guard(A.device());
    const int64_t total = B.numel();
    if (total == 0) return torch::empty_like(B);
    if (!g_out->defined() || g_out->sizes() != B.sizes() || g_out->device() != B.device()) {
        *g_out = torch::empty_like(B);
        *g_print = torch::full({2 * kPrint}, NAN, B.options()); // new shape: forget the old fingerprint
        *g_flag = torch::zeros({1}, B.options().dtype(torch::kInt32));
    }
    const auto stream = at::cuda::getCurrentCUDAStream();
    fingerprint_kernel<<<1, kPrint, 0, stream>>>(A.data_ptr<float>(), A.numel(), B.data_ptr<float>(), total,
                                                 g_print->data_ptr<float>(), g_flag->data_ptr<int>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    const int blocks = static_cast<int>(std::min<int64_t>((total + 255) / 256, 65536));
    diag_matmul_kernel<<<blocks, 256, 0, stream>>>(A.data_ptr<float>(), B.data_ptr<float>(), g_out->data_ptr<float>(),
                                                   total, B.size(1), g_flag->data_ptr<int>());
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return *g_out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "diag(A) @ B skipped on a repeated fingerprint (replay cheat)"); }
