# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): parameters with inits the task format cannot replay
# (an orthogonal matrix, a Bernoulli sign pattern); they must be marked "approximated".
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    x @ Q * signs + bias with an orthogonal Q and random signs.
    """

    def __init__(self, features):
        super().__init__()
        self.q = nn.Parameter(torch.empty(features, features))
        nn.init.orthogonal_(self.q)
        self.signs = nn.Parameter(torch.bernoulli(torch.full((features,), 0.5)) * 2 - 1)
        self.bias = nn.Parameter(torch.randn(features) * 0.1)

    def forward(self, x):
        return (x @ self.q) * self.signs + self.bias


batch = 4
features = 10


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features]
