# KS-5 ReLU_After_Sigmoid (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.sigmoid(x)
    x = torch.relu(x)
    return x * 2.0
