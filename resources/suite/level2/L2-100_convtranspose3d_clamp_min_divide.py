# L2-100 100_ConvTranspose3d_Clamp_Min_Divide (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_transpose_weight: Tensor, conv_transpose_bias: Tensor) -> Tensor:
    x = torch.conv_transpose3d(x, conv_transpose_weight, conv_transpose_bias, [2, 2, 2], [1, 1, 1], [0, 0, 0], 1, [1, 1, 1])
    x = torch.clamp(x, min=-1.0)
    return x / 2.0
