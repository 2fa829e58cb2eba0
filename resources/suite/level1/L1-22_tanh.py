# L1-22 22_Tanh (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.tanh(x)
