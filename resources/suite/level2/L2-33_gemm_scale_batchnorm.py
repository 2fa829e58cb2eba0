# L2-33 33_Gemm_Scale_BatchNorm (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor, scale: Tensor,
            bn_weight: Tensor, bn_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = x * scale
    return torch.batch_norm(x, bn_weight, bn_bias, None, None, True, 0.1, 1e-05, False)
