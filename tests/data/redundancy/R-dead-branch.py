# R-dead-branch (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor, w: Tensor, unused_w: Tensor) -> Tensor:
    y = torch.relu(torch.matmul(x, w))
    z = torch.tanh(torch.matmul(x, unused_w))
    return y
