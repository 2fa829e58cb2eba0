# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): the same forward, but the file asks for the number on
# the input's device: a copy from the host, and a wait, in every eager forward, which the import
# keeps (the task's own cost).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Clamps from above by a number copied to the input's device.
    """

    def __init__(self, limit):
        super().__init__()
        self.limit = limit

    def forward(self, x):
        return torch.min(x * 2.0, torch.tensor(self.limit, device=x.device))


def get_inputs():
    return [torch.rand(64, 256)]


def get_init_inputs():
    return [0.5]
