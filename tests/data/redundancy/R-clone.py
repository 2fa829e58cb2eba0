# R-clone (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    y = torch.tanh(x)
    z = y.clone()
    return z * 2.0
