# L2-18 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.sum(x, dim=1, keepdim=True)
    x = torch.max(x, 1, True)[0]
    x = torch.mean(x, dim=1, keepdim=True)
    x = torch.logsumexp(x, [1], True)
    return torch.logsumexp(x, [1], True)
