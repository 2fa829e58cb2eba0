# R-inplace-tail (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    h = torch.sigmoid(x)
    t = torch.tanh(x)
    u = t * 1.0
    g = torch.relu(h)
    g.mul_(2.0)
    return g + h + u
