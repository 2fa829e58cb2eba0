# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): layers made by copying one another. nn.TransformerEncoder
# deep-copies the layer it is given num_layers times, so its layers start with equal weights, drawn
# once; a Linear copied with copy.deepcopy after a Linear of its own, and one drawn after both. The
# engine must copy those tensors rather than draw them, or every copy and the last Linear differ.
# Dropout is 0: the forward draws nothing.
import copy

import torch
import torch.nn as nn

batch = 2
tokens = 4
dim = 8
heads = 2
depth = 3


class Model(nn.Module):
    """
    A transformer encoder of `depth` cloned layers, a Linear and its copy, then a Linear.
    """

    def __init__(self, dim, heads, depth):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=dim, nhead=heads, dim_feedforward=2 * dim, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=depth, enable_nested_tensor=False)
        self.proj = nn.Linear(dim, dim)
        self.proj_copy = copy.deepcopy(self.proj)
        self.head = nn.Linear(dim, 3)

    def forward(self, x):
        y = self.encoder(x)
        return self.head(self.proj_copy(torch.relu(self.proj(y))))


def get_inputs():
    return [torch.randn(batch, tokens, dim)]


def get_init_inputs():
    return [dim, heads, depth]
