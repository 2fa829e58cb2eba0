# L2-23 23_Conv3d_GroupNorm_Mean (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor, group_norm_weight: Tensor,
            group_norm_bias: Tensor) -> Tensor:
    x = torch.conv3d(x, conv_weight, conv_bias, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1)
    x = torch.group_norm(x, 8, group_norm_weight, group_norm_bias, 1e-05, False)
    return torch.mean(x, [1, 2, 3, 4])
