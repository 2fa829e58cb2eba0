# L2-9 9_Matmul_Subtract_Multiply_ReLU (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = x - 2.0
    x = x * 1.5
    return torch.relu(x)
