# L2-4 4_Conv2d_Mish_Mish (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor) -> Tensor:
    x = torch.conv2d(x, conv_weight, conv_bias, [1, 1], [0, 0], [1, 1], 1)
    x = torch.mish(x)
    return torch.mish(x)
