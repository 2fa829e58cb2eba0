# KS-7 Multiply_By_One_Add_Zero (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = x * 1.0
    x = x + 0.0
    return torch.gelu(x)
