import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a matrix multiplication, adds a bias term, and applies ReLU.
    """

    def __init__(self, in_features, out_features, bias_shape):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)

    def forward(self, x):
        x = self.gemm(x)
        x = x + self.bias
        return torch.relu(x)


batch_size = 32
in_features = 48
out_features = 24
bias_shape = (out_features,)


def get_inputs():
    return [torch.rand(batch_size, in_features)]  # uniform [0, 1)


def get_init_inputs():
    return [in_features, out_features, bias_shape]
