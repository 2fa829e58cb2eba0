# R-loop-after (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    u = torch.tanh(x) * 1.0
    h = torch.sigmoid(u)
    for i in range(2):
        h = h * 2.0
    return h
