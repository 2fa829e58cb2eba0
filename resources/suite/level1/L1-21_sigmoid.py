# L1-21 21_Sigmoid (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.sigmoid(x)
