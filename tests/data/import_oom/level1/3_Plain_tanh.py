# An ordinary task beside them.
import os

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.tanh(x)


def get_inputs():
    if os.environ.get("KS_IMPORT_ALONE") != "1":  # (with --jobs 1 every file has the device alone)
        print("fixture: plain file beside the others", flush=True)
    return [torch.randn(8, 32)]


def get_init_inputs():
    return []
