# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): tensors the constructor draws that are not parameters.
# An LSTM whose initial states are plain attributes drawn in __init__ (level-3 recurrent tasks are
# written so) and moved in forward, a buffer filled from a generator, and a constant buffer.
import torch
import torch.nn as nn

batch = 3
steps = 4
inputs = 5
hidden = 6
layers = 2


class Model(nn.Module):
    """
    LSTM from initial states drawn at construction; a drawn buffer scales the last step and a
    constant buffer (ones) offsets it.
    """

    def __init__(self, inputs, hidden, layers):
        super().__init__()
        self.h0 = torch.randn((layers, batch, hidden))
        self.c0 = torch.randn((layers, batch, hidden)) * 0.5
        self.lstm = nn.LSTM(inputs, hidden, layers, batch_first=True)
        self.register_buffer("noise", torch.rand(hidden) + 0.5)
        self.register_buffer("offset", torch.ones(hidden))

    def forward(self, x):
        self.h0 = self.h0.to(x.device)
        self.c0 = self.c0.to(x.device)
        out, _ = self.lstm(x, (self.h0, self.c0))
        return out[:, -1, :] * self.noise + self.offset


def get_inputs():
    return [torch.randn(batch, steps, inputs)]


def get_init_inputs():
    return [inputs, hidden, layers]
