# L2-34 34_ConvTranspose3d_LayerNorm_GELU_Scaling (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, conv_transpose_weight: Tensor, conv_transpose_bias: Tensor,
            layer_norm_weight: Tensor, layer_norm_bias: Tensor) -> Tensor:
    x = torch.conv_transpose3d(x, conv_transpose_weight, conv_transpose_bias, [2, 2, 2], [1, 1, 1], [0, 0, 0], 1, [1, 1, 1])
    x = torch.layer_norm(x, layer_norm_weight.size(), layer_norm_weight, layer_norm_bias, 1e-05, False)
    x = torch.gelu(x)
    return x * 1.0
