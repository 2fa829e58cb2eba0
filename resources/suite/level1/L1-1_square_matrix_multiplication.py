# L1-1 1_Square_matrix_multiplication_ (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    return torch.matmul(A, B)
