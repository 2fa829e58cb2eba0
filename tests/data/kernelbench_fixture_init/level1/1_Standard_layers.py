# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code, KernelBench's file format): every standard layer whose
# default init the engine must replay bit for bit, with groups and bias switched on and off.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One of each standard layer, applied to its own input; the outputs are flattened and joined.
    """

    def __init__(self, features, channels, vocab):
        super().__init__()
        c = channels
        self.fc = nn.Linear(features, 12)
        self.fc_nobias = nn.Linear(12, 5, bias=False)
        self.conv1 = nn.Conv1d(c, 6, 3)
        self.conv2 = nn.Conv2d(c, 6, 3, groups=2, bias=False)
        self.conv3 = nn.Conv3d(c, 4, 2, groups=2)
        self.tconv1 = nn.ConvTranspose1d(c, 6, 3, groups=2)
        self.tconv2 = nn.ConvTranspose2d(c, 6, 3, stride=2, bias=False)
        self.tconv3 = nn.ConvTranspose3d(c, 2, 2, groups=2)
        self.bn1 = nn.BatchNorm1d(c)
        self.bn2 = nn.BatchNorm2d(c)
        self.bn3 = nn.BatchNorm3d(c)
        self.ln = nn.LayerNorm(features)
        self.gn = nn.GroupNorm(2, c)
        self.inorm = nn.InstanceNorm2d(c, affine=True)
        self.emb = nn.Embedding(vocab, 7)

    def forward(self, x, s1, s2, s3, idx):
        outs = [
            self.fc_nobias(self.fc(self.ln(x))),
            self.conv1(self.bn1(s1)),
            self.conv2(self.gn(self.bn2(s2))),
            self.tconv2(self.inorm(s2)),
            self.conv3(self.bn3(s3)),
            self.tconv1(s1),
            self.tconv3(s3),
            self.emb(idx),
        ]
        return torch.cat([o.flatten() for o in outs])


batch = 3
features = 20
channels = 4
length = 9
vocab = 11


def get_inputs():
    x = torch.randn(batch, features)
    s1 = torch.randn(batch, channels, length)
    s2 = torch.randn(batch, channels, 6, 5)
    s3 = torch.randn(batch, channels, 4, 3, 5)
    idx = torch.randint(0, vocab, (batch, 6))
    return [x, s1, s2, s3, idx]


def get_init_inputs():
    return [features, channels, vocab]
