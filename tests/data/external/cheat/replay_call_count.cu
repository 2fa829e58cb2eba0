// SPDX-License-Identifier: MIT
// CHEAT (replay) on L1-19 ReLU: counts its calls and after 300 (past any warm-up and first checks) returns the previous output without computing; KernelSieve re-checks fresh inputs during and after the timed runs.
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

static int64_t g_calls = 0;
static torch::Tensor* g_last = new torch::Tensor(); // leaked on purpose: no CUDA free after the context is gone

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    if (++g_calls > 300 && g_last->defined() && g_last->sizes() == x.sizes())
        return *g_last; // "we are in the timing loop now": replay whatever was computed last
    torch::Tensor y = torch::empty_like(x);
    const int64_t n = x.numel();
    if (n > 0) {
        const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
        relu_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
    }
    *g_last = y;
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU that replays after 300 calls (replay cheat)"); }
