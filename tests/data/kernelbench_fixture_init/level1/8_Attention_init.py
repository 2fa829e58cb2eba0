# SPDX-License-Identifier: MIT
# KernelSieve test fixture (original code): nn.MultiheadAttention, whose constructor draws its
# out_proj bias (Linear's uniform init) and then sets it to 0, a scale computed without random
# numbers (log(10), as Swin's logit scale), and a Linear drawn after both: the engine must draw and
# discard that first bias draw and draw nothing for the scale, or the Linear's weights differ. The
# Dropout(p=0.0) draws no random numbers.
import torch
import torch.nn as nn

batch = 2
tokens = 5
dim = 8
heads = 2


class Model(nn.Module):
    """
    Self-attention over the tokens, then a Linear.
    """

    def __init__(self, dim, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.scale = nn.Parameter(torch.log(10 * torch.ones(dim)))
        self.drop = nn.Dropout(0.0)
        self.fc = nn.Linear(dim, 3)

    def forward(self, x):
        y, _ = self.attn(x, x, x, need_weights=False)
        return self.fc(self.drop(y * self.scale))


def get_inputs():
    return [torch.randn(batch, tokens, dim)]


def get_init_inputs():
    return [dim, heads]
