# R-relu-after-sigmoid (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    y = torch.sigmoid(x)
    y = torch.relu(y)
    return y * 2.0
