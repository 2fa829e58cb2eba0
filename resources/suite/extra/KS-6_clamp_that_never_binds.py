# KS-6 Clamp_That_Never_Binds (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor, bias: Tensor) -> Tensor:
    x = torch.conv2d(x, conv_weight, conv_bias, [1, 1], [0, 0], [1, 1], 1)
    x = torch.tanh(x)
    x = torch.clamp(x, -2.0, 2.0)
    return x + bias
