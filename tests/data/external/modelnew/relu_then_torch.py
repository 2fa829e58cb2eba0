# ModelNew for 19_ReLU (L1-19) whose forward does more than call its kernel: the extension result
# goes through torch.relu again, so the kernel alone is not what forward computes. Must be refused.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void leaky_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
}

torch::Tensor leaky_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "float32 CUDA tensor expected");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t n = xc.numel();
    if (n == 0) return y;
    const unsigned int blocks = (unsigned int)((n + 255) / 256);
    leaky_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

leaky = load_inline(
    name="leaky",
    cpp_sources="torch::Tensor leaky_cuda(torch::Tensor x);",
    cuda_sources=cuda_source,
    functions=["leaky_cuda"],
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.leaky = leaky

    def forward(self, x):
        y = self.leaky.leaky_cuda(x)
        return torch.relu(y)
