# R-norm-twice (KernelSieve redundancy test task, TorchScript)
def forward(x: Tensor) -> Tensor:
    y = torch.layer_norm(x, [256], None, None, 1e-05, False)
    y = torch.layer_norm(y, [256], None, None, 1e-05, False)
    return y
