# L1-97 97_CosineSimilarityLoss (KernelSieve built-in suite, TorchScript)
def forward(predictions: Tensor, targets: Tensor) -> Tensor:
    return torch.mean(1.0 - torch.cosine_similarity(predictions, targets, 1, 1e-08))
