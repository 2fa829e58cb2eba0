# KS-9 LayerNorm_Applied_Twice (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor, ln1_weight: Tensor, ln1_bias: Tensor,
            ln2_weight: Tensor, ln2_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.layer_norm(x, ln1_weight.size(), ln1_weight, ln1_bias, 1e-05, False)
    return torch.layer_norm(x, ln2_weight.size(), ln2_weight, ln2_bias, 1e-05, False)
