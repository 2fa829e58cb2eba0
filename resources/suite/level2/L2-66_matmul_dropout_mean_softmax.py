# L2-66 66_Matmul_Dropout_Mean_Softmax (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.dropout(x, 0.2, False)
    x = torch.mean(x, dim=1, keepdim=True)
    return torch.softmax(x, 1)
