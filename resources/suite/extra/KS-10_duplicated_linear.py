# KS-10 Duplicated_Linear (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    a = torch.linear(x, linear_weight, linear_bias)
    b = torch.linear(x, linear_weight, linear_bias)
    return torch.relu(a) * torch.sigmoid(b)
