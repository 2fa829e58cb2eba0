# L2-52 52_Conv2d_Activation_BatchNorm (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_weight: Tensor, conv_bias: Tensor, bn_weight: Tensor, bn_bias: Tensor) -> Tensor:
    x = torch.conv2d(x, conv_weight, conv_bias, [1, 1], [0, 0], [1, 1], 1)
    x = torch.mul(torch.tanh(torch.softplus(x, 1.0, 20.0)), x)
    return torch.batch_norm(x, bn_weight, bn_bias, None, None, True, 0.1, 1e-05, False)
