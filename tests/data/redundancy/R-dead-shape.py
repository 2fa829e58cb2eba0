# R-dead-shape (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor, p: Tensor) -> Tensor:
    h = torch.matmul(x, p)
    y = torch.relu(x)
    return y.view(-1, h.size(1))
