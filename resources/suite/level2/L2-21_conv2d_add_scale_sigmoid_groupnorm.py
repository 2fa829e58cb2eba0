# L2-21 21_Conv2d_Add_Scale_Sigmoid_GroupNorm (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor, bias: Tensor, scale: Tensor,
            group_norm_weight: Tensor, group_norm_bias: Tensor) -> Tensor:
    x = torch.conv2d(x, conv_weight, conv_bias, [1, 1], [0, 0], [1, 1], 1)
    x = x + bias
    x = x * scale
    x = torch.sigmoid(x)
    return torch.group_norm(x, 8, group_norm_weight, group_norm_bias, 1e-05, False)
