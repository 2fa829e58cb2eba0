# L2-86 86_Matmul_Divide_GELU (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = x / 10.0
    return torch.gelu(x)
