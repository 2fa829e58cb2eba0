# L1-16 16_Matmul_with_transposed_A (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    return torch.matmul(A.t(), B)
