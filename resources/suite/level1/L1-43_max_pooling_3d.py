# L1-43 43_Max_Pooling_3D (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.max_pool3d(x, [3, 3, 3], [2, 2, 2], [1, 1, 1], [3, 3, 3], False)
