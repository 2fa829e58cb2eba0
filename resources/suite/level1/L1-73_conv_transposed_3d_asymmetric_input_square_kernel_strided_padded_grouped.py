# L1-73 73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor) -> Tensor:
    return torch.conv_transpose3d(x, weight, None, [2, 2, 2], [3, 3, 3], [0, 0, 0], 4, [1, 1, 1])
