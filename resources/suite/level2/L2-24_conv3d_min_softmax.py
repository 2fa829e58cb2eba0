# L2-24 24_Conv3d_Min_Softmax (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor) -> Tensor:
    x = torch.conv3d(x, conv_weight, conv_bias, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1)
    x = torch.min(x, 2)[0]
    return torch.softmax(x, 1)
