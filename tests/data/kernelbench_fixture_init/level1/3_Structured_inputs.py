# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): inputs with structure -- triangular, symmetric, Gram,
# positive and integer -- which the exporter must record as transforms, not as a fitted normal.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Mixes structured matrices so that every input changes the output.
    """

    def __init__(self):
        super().__init__()

    def forward(self, upper, lower, sym, half_sym, gram, pos, mag, growth, ids, shifted):
        m = upper @ lower + sym - half_sym + gram
        scale = (pos + mag + growth).sum(dim=1, keepdim=True)
        return m * scale + ids.float().mean() + shifted.mean()


n = 12


def get_inputs():
    upper = torch.triu(torch.randn(n, n))
    lower = torch.randn(n, n).tril(-1)
    a = torch.randn(n, n)
    sym = a + a.T
    b = torch.randn(n, n)
    half_sym = (b + b.T) / 2
    c = torch.randn(n, n)
    gram = c @ c.T
    pos = torch.rand(n, n)
    mag = torch.randn(n, n).abs()
    growth = torch.exp(torch.randn(n, n))
    ids = torch.randint(3, 17, (n,))
    shifted = torch.randn(n) / 3 + 1
    return [upper, lower, sym, half_sym, gram, pos, mag, growth, ids, shifted]


def get_init_inputs():
    return []
