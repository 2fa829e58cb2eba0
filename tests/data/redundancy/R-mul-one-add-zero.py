# R-mul-one-add-zero (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    y = x * 1.0
    y = y + 0.0
    return torch.gelu(y)
