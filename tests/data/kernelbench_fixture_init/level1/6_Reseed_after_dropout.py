# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): a forward that reseeds between two dropouts. A trace
# cannot record torch.manual_seed, so the engine cannot replay this; the import must still work
# and say so, not blame data-dependent control flow.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Dropout, reseed, dropout again.
    """

    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = F.dropout(x, 0.5, training=True)
        torch.manual_seed(7)
        return F.dropout(y, 0.5, training=True)


def get_inputs():
    return [torch.randn(6, 10)]


def get_init_inputs():
    return []
