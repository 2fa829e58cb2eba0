# L1-25 25_Swish (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return x * torch.sigmoid(x)
