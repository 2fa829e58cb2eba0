# R-clamp-never-binds (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor, b: Tensor) -> Tensor:
    y = torch.tanh(x)
    y = torch.clamp(y, -2.0, 2.0)
    return y + b
