# L1-52 52_Argmin_over_a_dimension (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.argmin(x, 1)
