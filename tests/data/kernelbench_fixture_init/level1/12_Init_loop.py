# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): every layer draws its default init in the constructor,
# then a loop over self.modules() draws the weights again (the torchvision habit). The first draws
# are kept by no tensor, yet they move the generator: the spec must make them again and discard
# them ("discard_before"), or every parameter after them is another sample.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Two convolutions with batch norm and a linear head, initialised in a loop.
    """

    def __init__(self, channels, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.fc = nn.Linear(channels, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        return self.fc(x.mean(dim=(2, 3)))


batch_size = 4
channels = 8
classes = 5


def get_inputs():
    return [torch.rand(batch_size, 3, 16, 16)]


def get_init_inputs():
    return [channels, classes]
