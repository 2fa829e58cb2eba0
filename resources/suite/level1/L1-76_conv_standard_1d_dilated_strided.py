# L1-76 76_conv_standard_1D_dilated_strided__ (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor) -> Tensor:
    return torch.conv1d(x, weight, None, [3], [0], [4], 1)
