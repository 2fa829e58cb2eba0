// SPDX-License-Identifier: MIT
// LIBRARY on L1-19 ReLU: the right result through at::relu only, with no __global__ of its own; KernelSieve's profiled call finds none of the file's kernels and shows "library" beside valid.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32 && x.is_contiguous(),
                "x must be a contiguous float32 CUDA tensor");
    return at::relu(x);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "ReLU via at::relu (library)"); }
