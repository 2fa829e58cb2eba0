# Fixture in robust-kbench's task-folder format (written for KernelSieve's tests): a linear layer
# whose output is scaled, with the weight and bias as parameters and the scale as a scalar.
import torch
import torch.nn as nn
import torch.nn.functional as F


def forward_fn(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, scale: float) -> torch.Tensor:
    """Linear transformation followed by a scaling.

    Args:
        x (torch.Tensor): Input of shape (batch_size, in_features).
        weight (torch.Tensor): Weight of shape (out_features, in_features).
        bias (torch.Tensor): Bias of shape (out_features).
        scale (float): Factor applied to the output.

    Returns:
        torch.Tensor: (x @ weight.T + bias) * scale, shape (batch_size, out_features).
    """
    return F.linear(x, weight, bias) * scale


class Model(nn.Module):
    """Linear layer, then a multiplication by a constant."""

    def __init__(self, in_features: int = 64, out_features: int = 32, scale: float = 2.0):
        super(Model, self).__init__()
        linear = nn.Linear(in_features, out_features)
        self.weight = nn.Parameter(linear.weight)
        self.bias = nn.Parameter(linear.bias)
        self.scale = scale

    def forward(self, x, fn=forward_fn):
        return fn(x, self.weight, self.bias, self.scale)


def get_inputs(batch_size: int = 16, in_features: int = 64):
    x = torch.randn(batch_size, in_features)
    return [x]


input_names = ["x"]
