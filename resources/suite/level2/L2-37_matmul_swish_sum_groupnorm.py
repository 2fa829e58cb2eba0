# L2-37 37_Matmul_Swish_Sum_GroupNorm (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor, bias: Tensor,
            group_norm_weight: Tensor, group_norm_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.sigmoid(x) * x
    x = x + bias
    return torch.group_norm(x, 32, group_norm_weight, group_norm_bias, 1e-05, False)
