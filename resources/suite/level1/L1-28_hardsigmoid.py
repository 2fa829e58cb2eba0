# L1-28 28_HardSigmoid (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.hardsigmoid(x)
