# L1-82 82_conv_depthwise_2D_square_input_square_kernel (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor) -> Tensor:
    return torch.conv2d(x, weight, None, [1, 1], [0, 0], [1, 1], x.size(1))
