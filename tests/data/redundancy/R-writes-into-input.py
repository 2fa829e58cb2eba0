# R-writes-into-input (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    x.mul_(2.0)
    y = torch.clamp(x, -100.0, 100.0)
    return torch.tanh(y)
