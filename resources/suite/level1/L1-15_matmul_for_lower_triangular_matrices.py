# L1-15 15_Matmul_for_lower_triangular_matrices (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    A = torch.tril(A)
    B = torch.tril(B)
    return torch.tril(torch.matmul(A, B))
