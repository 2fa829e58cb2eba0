import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sums each row over the positions a boolean mask keeps. The mask is drawn as rand > 0.5,
    which the task format cannot express exactly.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x, mask):
        return (x * mask).sum(dim=1)


batch_size = 16
dim = 256


def get_inputs():
    x = torch.randn(batch_size, dim)
    mask = torch.rand(batch_size, dim) > 0.5
    return [x, mask]


def get_init_inputs():
    return []
