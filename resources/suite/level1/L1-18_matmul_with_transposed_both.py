# L1-18 18_Matmul_with_transposed_both (KernelSieve built-in suite, TorchScript)
def forward(A: Tensor, B: Tensor) -> Tensor:
    return torch.matmul(A.t(), B.t())
