# L1-64 64_conv_transposed_1D (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor) -> Tensor:
    return torch.conv_transpose1d(x, weight, None, [1], [0], [0], 1, [1])
