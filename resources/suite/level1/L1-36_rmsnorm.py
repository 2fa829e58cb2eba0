# L1-36 36_RMSNorm_ (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-05)
    return x / rms
