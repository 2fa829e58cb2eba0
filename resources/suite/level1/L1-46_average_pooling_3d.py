# L1-46 46_Average_Pooling_3D (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.avg_pool3d(x, [3, 3, 3], [2, 2, 2], [1, 1, 1], False, True, None)
