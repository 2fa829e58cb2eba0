# L1-19 19_ReLU (KernelSieve built-in suite, TorchScript)
def forward(x: Tensor) -> Tensor:
    return torch.relu(x)
