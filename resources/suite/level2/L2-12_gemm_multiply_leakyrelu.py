# L2-12 12_Gemm_Multiply_LeakyReLU (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = x * 2.0
    return torch.leaky_relu(x, 0.1)
