# L1-27 27_SELU_ (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.selu(x)
