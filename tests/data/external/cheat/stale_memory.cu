// SPDX-License-Identifier: MIT
// CHEAT (stale-memory) on L1-19 ReLU: returns torch::empty_like(x) and writes nothing, hoping the caching allocator hands back the freed buffer of the harness's own relu(x); KernelSieve NaN-fills every tensor it computed before freeing it, so the output comes back NaN and aliases a freed buffer.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    const at::cuda::OptionalCUDAGuard guard(x.device());
    // "The kernel is so fast it takes 0 us": nothing is launched, the memory already holds relu(x)
    // whenever the eager output of the same shape was freed just before this call.
    return torch::empty_like(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU that writes nothing (stale-memory cheat)"); }
