# L1-20 20_LeakyReLU (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.leaky_relu(x, 0.01)
