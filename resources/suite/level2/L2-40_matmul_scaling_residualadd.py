# L2-40 40_Matmul_Scaling_ResidualAdd (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    original_x = x.clone().detach()
    x = x * 0.5
    return x + original_x
