// SPDX-License-Identifier: MIT
// CHEAT (async-work) on L1-19 ReLU: queues a ~1 ms spin and then the real kernel on a non-blocking stream of its own and returns without any sync or event, so the caller's stream sees the output before it is written (and the timing on the caller's stream sees no work); KernelSieve reads the output stream-ordered right after return: wrong there, right only after a device-wide sync.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>

__global__ void spin_kernel(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float v = x[i];
        y[i] = v < 0.f ? 0.f : v;
    }
}

static cudaStream_t g_side = nullptr; // created once, never destroyed (single device)

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    if (g_side == nullptr) C10_CUDA_CHECK(cudaStreamCreateWithFlags(&g_side, cudaStreamNonBlocking));
    // The output comes from the side stream's pool, not from buffers the caller's stream just
    // freed, so what the caller reads early is old garbage rather than a stale copy of relu(x).
    torch::Tensor y;
    {
        const c10::cuda::CUDAStreamGuard on_side(c10::cuda::getStreamFromExternal(g_side, x.device().index()));
        y = torch::empty_like(x);
    }
    const int64_t n = x.numel();
    if (n == 0) return y;
    spin_kernel<<<1, 1, 0, g_side>>>(2000000LL); // ~1 ms at the H200's ~2 GHz
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
    relu_kernel<<<blocks, 256, 0, g_side>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y; // no event, no cudaStreamWaitEvent: the caller's stream does not wait for g_side
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU on an unsynchronised side stream (async-work cheat)"); }
