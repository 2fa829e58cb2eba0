# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): heavy-tailed inputs sampled through torch.distributions,
# as later KernelBench loss tasks draw them. Pareto(scale, alpha) samples exponential_() / alpha,
# then exp, then * scale (0-dim tensors of the distribution); Exponential(rate) exponential_() / rate.
# The exporter must record these as the exponential draw and its transforms, not as a fitted normal.
import torch
import torch.nn as nn
from torch.distributions import Exponential, Pareto


class Model(nn.Module):
    """
    A squared error between two heavy-tailed tensors, plus the mean of a third.
    """

    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets, waits):
        return torch.mean((predictions - targets) ** 2) + waits.mean()


batch_size = 64
dim = 48


def get_inputs():
    predictions = Pareto(0.01, 1.5).sample((batch_size, dim))
    targets = Pareto(2.0, 3.0).sample((batch_size, dim))
    waits = Exponential(4.0).sample((batch_size,))
    return [predictions, targets, waits]


def get_init_inputs():
    return []
