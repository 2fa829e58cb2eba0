# L1-90 90_cumprod (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.cumprod(x, 1)
