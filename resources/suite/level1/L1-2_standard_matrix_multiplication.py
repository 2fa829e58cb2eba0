# L1-2 2_Standard_matrix_multiplication_ (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    return torch.matmul(A, B)
