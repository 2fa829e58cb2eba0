# L1-91 91_cumsum_reverse (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.flip(torch.cumsum(torch.flip(x, [1]), 1), [1])
