# ModelNew for KernelBench level2 12_Gemm_Multiply_LeakyReLU (built-in task L2-12): one fused
# kernel called with the input, the Linear's weight and bias (parameters: the task names them
# linear_weight / linear_bias, matched here by shape) and two literal scalars.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

// y[i, j] = leaky_relu((sum_k x[i, k] * w[j, k] + b[j]) * multiplier, negative_slope)
__global__ void gemm_mul_leaky_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ b, float* __restrict__ y,
                                      int64_t M, int64_t N, int64_t K, float multiplier, float slope) {
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= M * N) return;
    const int64_t i = idx / N, j = idx % N;
    const float* xr = x + i * K;
    const float* wr = w + j * K;
    float acc = 0.0f;
    for (int64_t k = 0; k < K; ++k) acc = fmaf(xr[k], wr[k], acc);
    const float v = (acc + b[j]) * multiplier;
    y[idx] = v > 0.0f ? v : v * slope;
}

torch::Tensor gemm_mul_leaky_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias,
                                  double multiplier, double negative_slope) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda() && bias.is_cuda(), "CUDA tensors expected");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32 && weight.scalar_type() == torch::kFloat32 &&
                bias.scalar_type() == torch::kFloat32, "float32 expected");
    TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && bias.dim() == 1, "x [M, K], weight [N, K], bias [N]");
    TORCH_CHECK(x.size(1) == weight.size(1) && weight.size(0) == bias.size(0), "shapes do not match");
    auto xc = x.contiguous();
    auto wc = weight.contiguous();
    auto bc = bias.contiguous();
    const int64_t M = xc.size(0), K = xc.size(1), N = wc.size(0);
    auto y = torch::empty({M, N}, xc.options());
    if (M * N == 0) return y;
    const unsigned int blocks = (unsigned int)((M * N + 255) / 256);
    gemm_mul_leaky_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), M, N, K,
        (float)multiplier, (float)negative_slope);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}
"""

fused = load_inline(
    name="gemm_mul_leaky",
    cpp_sources="torch::Tensor gemm_mul_leaky_cuda(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, "
                "double multiplier, double negative_slope);",
    cuda_sources=cuda_source,
    functions=["gemm_mul_leaky_cuda"],
    extra_cuda_cflags=["-O3", ""],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, multiplier, negative_slope):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.multiplier = multiplier
        self.negative_slope = negative_slope
        self.fused = fused

    def forward(self, x):
        return self.fused.gemm_mul_leaky_cuda(x, self.gemm.weight, self.gemm.bias, self.multiplier,
                                              self.negative_slope)


batch_size = 128
in_features = 1024
out_features = 512
multiplier = 2.0
negative_slope = 0.1


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, multiplier, negative_slope]
