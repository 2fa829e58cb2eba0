// Linear + scale for the robust-kbench fixture task `linear`:
// forward(x, weight, bias, scale)[i, j] = (sum_k x[i, k] * weight[j, k] + bias[j]) * scale.
// One thread per output element (a naive but correct kernel).
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void linear_scale_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    const float* __restrict__ b, float* __restrict__ y,
                                    int64_t M, int64_t N, int64_t K, float scale) {
    const int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx >= M * N) return;
    const int64_t i = idx / N, j = idx % N;
    const float* xr = x + i * K;
    const float* wr = w + j * K;
    float acc = 0.0f;
    for (int64_t k = 0; k < K; ++k) acc = fmaf(xr[k], wr[k], acc);
    y[idx] = (acc + b[j]) * scale;
}

torch::Tensor forward(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double scale) {
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
    linear_scale_kernel<<<blocks, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), wc.data_ptr<float>(), bc.data_ptr<float>(), y.data_ptr<float>(), M, N, K, (float)scale);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &forward, "Linear + scale (CUDA)");
}
