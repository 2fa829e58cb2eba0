# Fixture in robust-kbench's task-folder format with a syntax error: importing it must fail for
# this task alone.
import torch
import torch.nn as nn


def forward_fn(x: torch.Tensor) -> torch.Tensor
    return torch.tanh(x)


class Model(nn.Module):
    def forward(self, x, fn=forward_fn):
        return fn(x)


def get_inputs(batch_size: int = 4, dim: int = 32):
    return [torch.randn(batch_size, dim)]
