# L1-86 86_conv_depthwise_separable_2D (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, depthwise_weight: Tensor, pointwise_weight: Tensor) -> Tensor:
    x = torch.conv2d(x, depthwise_weight, None, [1, 1], [0, 0], [1, 1], x.size(1))
    return torch.conv2d(x, pointwise_weight, None, [1, 1], [0, 0], [1, 1], 1)
