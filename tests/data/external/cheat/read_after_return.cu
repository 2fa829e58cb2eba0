// SPDX-License-Identifier: MIT
// CHEAT (input-read-after-return) on L1-19 ReLU: writes the right output on the caller's stream, then a detached std::thread re-launches the same kernel on that stream 5 ms later, re-reading x into the output ("a deferred refinement pass"). With x untouched the second pass is a no-op, so the output is right both stream-ordered at return and after a sync (no async-work); but once the caller reuses x after the call returns, as any caller may, the late pass rewrites the output from garbage. KernelSieve overwrites the inputs on the call's stream right after return and must re-read the output after a device-wide sync and a wait longer than 5 ms.
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
    const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 65536));
    relu_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n); // honest first pass
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    // The late pass is queued on the same stream 5 ms from now, i.e. after whatever the caller
    // queued in between (such as overwriting x), and reads x then. The lambda keeps x and y alive.
    const int device = x.get_device();
    std::thread([x, y, n, blocks, stream, device] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        cudaSetDevice(device);
        relu_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    }).detach();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU with a late second pass over x (input-read-after-return cheat)"); }
