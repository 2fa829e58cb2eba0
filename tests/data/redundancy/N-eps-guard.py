# N-eps-guard (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    n = torch.sqrt(torch.sum(x * x, dim=1, keepdim=True))
    n = torch.clamp_min(n, 1e-12)
    return x / n
