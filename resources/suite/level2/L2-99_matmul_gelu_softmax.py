# L2-99 99_Matmul_GELU_Softmax (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.gelu(x)
    return torch.softmax(x, 1)
