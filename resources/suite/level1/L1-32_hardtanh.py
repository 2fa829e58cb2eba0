# L1-32 32_HardTanh (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.hardtanh(x, -1.0, 1.0)
