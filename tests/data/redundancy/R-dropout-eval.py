# R-dropout-eval (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    y = torch.dropout(x, 0.3, False)
    return torch.relu(y)
