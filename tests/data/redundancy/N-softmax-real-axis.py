# N-softmax-real-axis (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.softmax(x, 1)
