# KS-1 Dead_Branch_Unused_Linear (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor, branch_weight: Tensor,
            branch_bias: Tensor) -> Tensor:
    y = torch.relu(torch.linear(x, linear_weight, linear_bias))
    unused = torch.tanh(torch.linear(x, branch_weight, branch_bias))
    return y
