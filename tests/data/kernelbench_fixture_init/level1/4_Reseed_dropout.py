# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): a forward that reseeds the generator and applies
# dropout in training mode; importing it must work and say what the engine does with the seed.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Linear layer, dropout with a fixed seed set inside forward, then ReLU.
    """

    def __init__(self, features, p):
        super().__init__()
        self.fc = nn.Linear(features, features)
        self.drop = nn.Dropout(p)
        self.p = p

    def forward(self, x):
        torch.manual_seed(42)
        y = self.drop(self.fc(x))
        return F.relu(F.dropout(y, self.p, training=True))


batch = 8
features = 16


def get_inputs():
    return [torch.randn(batch, features)]


def get_init_inputs():
    return [features, 0.25]
