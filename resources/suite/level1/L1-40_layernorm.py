# L1-40 40_LayerNorm (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    return torch.layer_norm(x, weight.size(), weight, bias, 1e-05, False)
