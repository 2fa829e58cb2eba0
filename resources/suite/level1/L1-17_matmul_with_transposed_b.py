# L1-17 17_Matmul_with_transposed_B (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    return torch.matmul(A, B.t())
