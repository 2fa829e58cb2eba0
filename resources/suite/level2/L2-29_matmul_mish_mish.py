# L2-29 29_Matmul_Mish_Mish (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    return torch.mish(torch.mish(x))
