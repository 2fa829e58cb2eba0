import torch
import torch.nn as nn


class Model(nn.Module):
    """ShuffleNet's channel shuffle: the channel count divided by the groups is shape arithmetic,
    which a trace records as tensor ops with the groups as a 0-dim tensor constant."""

    def __init__(self, groups):
        super(Model, self).__init__()
        self.groups = groups

    def forward(self, x):
        batch, channels, height, width = x.size()
        x = x.view(batch, self.groups, channels // self.groups, height, width)
        x = x.transpose(1, 2).contiguous()
        return torch.relu(x.view(batch, channels, height, width)) + 1.0


batch_size = 4
channels = 48
groups = 3
height = 8
width = 8


def get_inputs():
    return [torch.randn(batch_size, channels, height, width)]


def get_init_inputs():
    return [groups]
