# KS-8 Dropout_In_Eval_Mode (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, linear_weight: Tensor, linear_bias: Tensor) -> Tensor:
    x = torch.linear(x, linear_weight, linear_bias)
    x = torch.dropout(x, 0.3, False)
    return torch.relu(x)
