# R-inplace-after-cut (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    h = x * 3.0
    a = torch.sigmoid(h)
    b = torch.relu(a)
    h.mul_(2.0)
    return h * b + a
