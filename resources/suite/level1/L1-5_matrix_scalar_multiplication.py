# L1-5 5_Matrix_scalar_multiplication (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor) -> Tensor:
    return A * 3.14
