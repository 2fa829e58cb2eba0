# L1-26 26_GELU_ (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.gelu(x)
