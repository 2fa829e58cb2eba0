# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): a forward that makes a tensor of a Python number on the
# host. Eager PyTorch hands it to the GPU's kernel as a number, with no copy and no wait; a GPU import
# must keep it there (a trace bakes its device, `cpu`, into a constant).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Clamps from above by a number kept on the host.
    """

    def __init__(self, limit):
        super().__init__()
        self.limit = limit

    def forward(self, x):
        return torch.min(x * 2.0, torch.tensor(self.limit))


def get_inputs():
    return [torch.rand(64, 256)]


def get_init_inputs():
    return [0.5]
