# L2-76 76_Gemm_Add_ReLU (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, None)
    x = x + bias
    return torch.relu(x)
