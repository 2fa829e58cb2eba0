import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A forward that branches on its data: a trace records one branch only.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return torch.relu(x)
        return x


batch_size = 16
dim = 512


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
