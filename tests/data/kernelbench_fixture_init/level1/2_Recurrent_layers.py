# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): LSTM and GRU, whose parameters PyTorch draws in
# w_ih, w_hh, b_ih, b_hh order per layer and direction, all from U(-1/sqrt(hidden), 1/sqrt(hidden)).
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A two-layer LSTM followed by a bidirectional GRU; returns the GRU's last output step.
    """

    def __init__(self, inputs, hidden):
        super().__init__()
        self.lstm = nn.LSTM(inputs, hidden, num_layers=2, batch_first=True)
        self.gru = nn.GRU(hidden, hidden, bidirectional=True, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, _ = self.gru(y)
        return z[:, -1, :]


batch = 2
steps = 5
inputs = 6
hidden = 8


def get_inputs():
    return [torch.randn(batch, steps, inputs)]


def get_init_inputs():
    return [inputs, hidden]
