# R-constant-nan-on-zero (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    a = torch.abs(x)
    one = a / a
    return torch.tanh(x) * one
