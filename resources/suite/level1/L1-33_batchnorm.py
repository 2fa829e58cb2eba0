# L1-33 33_BatchNorm (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    return torch.batch_norm(x, weight, bias, None, None, True, 0.1, 1e-05, False)
