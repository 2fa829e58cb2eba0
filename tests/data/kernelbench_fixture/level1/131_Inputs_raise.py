import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return x * 2


def get_inputs():
    raise ValueError("this task needs a dataset file that is not here")


def get_init_inputs():
    return []
