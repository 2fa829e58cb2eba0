# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): a convolution whose output is multiplied by 1.0, an op
# filter 6 finds without effect. The convolution stays in the graph filter 5 times without it
# (drop-redundant), and its trace carries allow_tf32 = True.
import torch
import torch.nn as nn

batch = 2
channels = 3
size = 10


class Model(nn.Module):
    """
    Conv2d, then a multiplication by one.
    """

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, 4, 3)
        self.scale = 1.0

    def forward(self, x):
        return self.conv(x) * self.scale


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels]
