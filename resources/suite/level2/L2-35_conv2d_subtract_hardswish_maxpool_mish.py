# L2-35 35_Conv2d_Subtract_HardSwish_MaxPool_Mish (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor) -> Tensor:
    x = torch.conv2d(x, conv_weight, conv_bias, [1, 1], [0, 0], [1, 1], 1)
    x = x - 0.5
    x = torch.hardswish(x)
    x = torch.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1], False)
    return torch.mish(x)
