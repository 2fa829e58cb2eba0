# L2-88 88_Gemm_GroupNorm_Swish_Multiply_Swish (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor, group_norm_weight: Tensor,
            group_norm_bias: Tensor, multiply_weight: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.group_norm(x, 16, group_norm_weight, group_norm_bias, 1e-05, False)
    x = x * torch.sigmoid(x)
    x = x * multiply_weight
    return x * torch.sigmoid(x)
