# R-add-zeros-broadcast (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    z = torch.zeros([x.size(0), 8], dtype=x.dtype, device=x.device)
    y = x + z
    return torch.tanh(y)
