# L1-100 100_HingeLoss (KernelSieve built-in suite, TorchScript)
def forward(predictions: Tensor, targets: Tensor) -> Tensor:
    return torch.mean(torch.clamp(1.0 - predictions * targets, min=0.0))
