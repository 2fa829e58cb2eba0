import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A 2D convolution, batch normalisation (training mode, as KernelBench runs it) and ReLU.
    """

    def __init__(self, in_channels, out_channels, kernel_size):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=1)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


batch_size = 4
in_channels = 3
out_channels = 8
kernel_size = 3
height = 16
width = 20


def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
