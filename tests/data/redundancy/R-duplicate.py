# R-duplicate (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor, w: Tensor) -> Tensor:
    a = torch.matmul(x, w)
    b = torch.matmul(x, w)
    return torch.relu(a) * torch.sigmoid(b)
