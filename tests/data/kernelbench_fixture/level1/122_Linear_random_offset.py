import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A linear layer plus a random offset that the constructor draws as a buffer, not as a
    parameter, scaled by a random Python float. The engine draws the buffer again for every seed
    (it is a tensor of the model), but not the float, which no tensor keeps: that draw shifts the
    generator, so seed s is not robust-kbench's seed s for the parameters drawn after it.
    """

    def __init__(self, in_features, out_features):
        super(Model, self).__init__()
        self.register_buffer("offset", torch.randn(out_features))
        self.scale = float(torch.rand(1)) + 0.5
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x) + self.offset * self.scale


batch_size = 16
in_features = 32
out_features = 8


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
