# L1-30 30_Softsign (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return x / (1 + torch.abs(x))
