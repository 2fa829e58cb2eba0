# KS-2 Dead_Matmul_Used_Only_For_Its_Shape (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor, probe_weight: Tensor) -> Tensor:
    h = torch.matmul(x, probe_weight.t())
    y = torch.relu(torch.linear(x, linear_weight, linear_bias))
    return y.view(-1, h.size(1))
