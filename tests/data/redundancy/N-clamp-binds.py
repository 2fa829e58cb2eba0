# N-clamp-binds (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    y = torch.clamp(x, -0.5, 0.5)
    return y * 2.0
