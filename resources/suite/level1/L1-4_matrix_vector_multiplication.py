# L1-4 4_Matrix_vector_multiplication_ (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    return torch.matmul(A, B)
