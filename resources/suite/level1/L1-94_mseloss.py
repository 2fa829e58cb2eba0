# L1-94 94_MSELoss (KernelSieve built-in suite, TorchScript)
def forward(predictions: Tensor, targets: Tensor) -> Tensor:
    return torch.mean((predictions - targets) ** 2)
