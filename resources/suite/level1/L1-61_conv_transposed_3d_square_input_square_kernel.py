# L1-61 61_conv_transposed_3D__square_input__square_kernel (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor) -> Tensor:
    return torch.conv_transpose3d(x, weight, None, [1, 1, 1], [0, 0, 0], [0, 0, 0], 1, [1, 1, 1])
