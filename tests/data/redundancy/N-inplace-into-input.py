# N-inplace-into-input (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    v = x.view(-1)
    t = torch.tanh(x)
    c = x * 1.0
    c.add_(1.0)
    return c + v.view_as(x) + t
