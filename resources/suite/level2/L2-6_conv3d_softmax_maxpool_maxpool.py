# L2-6 6_Conv3d_Softmax_MaxPool_MaxPool (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor) -> Tensor:
    x = torch.conv3d(x, conv_weight, conv_bias, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1)
    x = torch.softmax(x, 1)
    x = torch.max_pool3d(x, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False)
    return torch.max_pool3d(x, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False)
