# Fixture in robust-kbench's task-folder format (written for KernelSieve's tests): an elementwise
# ReLU with no parameters.
import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor) -> torch.Tensor:
    """Applies ReLU elementwise.

    Args:
        x (torch.Tensor): Input tensor of any shape.

    Returns:
        torch.Tensor: relu(x), same shape.
    """
    return F.relu(x)


class Model(nn.Module):
    """Applies ReLU to its input."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x, fn=forward_fn):
        return fn(x)


def get_inputs(batch_size: int = 16, dim: int = 16384):
    x = torch.randn(batch_size, dim)
    return [x]


input_names = ["x"]
