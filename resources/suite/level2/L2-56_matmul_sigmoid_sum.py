# L2-56 56_Matmul_Sigmoid_Sum (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.sigmoid(x)
    return torch.sum(x, dim=1, keepdim=True)
