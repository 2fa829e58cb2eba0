# R-reduce-size1 (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    m = torch.mean(x, dim=1, keepdim=True)
    s = torch.sum(x, dim=1, keepdim=True)
    return torch.tanh(m) + s
