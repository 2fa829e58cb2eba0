// SPDX-License-Identifier: MIT
// CHEAT (async-work) on L1-19 ReLU: returns an empty output at once and lets a detached std::thread launch the real kernel on the caller's stream 20 ms later, so nothing is queued when the call returns; KernelSieve reads the output stream-ordered right after return (wrong), and only a device-wide sync after a wait sees it right (its wait must exceed 20 ms).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <algorithm>
#include <chrono>
#include <thread>

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
    const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    const int device = x.get_device();
    // The lambda holds x and y, so their memory stays allocated until the late launch is queued.
    std::thread([x, y, n, stream, device] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        cudaSetDevice(device);
        const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
        relu_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    }).detach();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU launched 20 ms later by a thread (async-work cheat)"); }
