# SPDX-License-Identifier: MIT
"""Level 3 of KernelSieve's import-benchmark corpus: 50 whole models in KernelBench's task format.

Written for KernelSieve (not copied from KernelBench or any other project). make_corpus.py calls
``tasks(Task, S)`` and numbers the list 1..50 in order:

- MLPs: 1 MLP, 2 ShallowWideMLP, 3 DeepNarrowMLP;
- classic CNNs: 4 LeNet5, 5 AlexNet, 6 GoogleNetInceptionModule, 7 GoogleNetInceptionV1,
  8 ResNetBasicBlock, 9 ResNet18, 10 ResNet101, 11 VGG16, 12 VGG19;
- DenseNet: 13 DenseNet121TransitionLayer, 14 DenseNet121DenseBlock, 15 DenseNet121, 16 DenseNet201;
- mobile CNNs: 17 SqueezeNetFireModule, 18 SqueezeNet, 19 MobileNetV1, 20 MobileNetV2,
  21 EfficientNetMBConv, 22-24 EfficientNetB0/B1/B2 (compound width/depth scaling of one B0
  table), 25 ShuffleNetUnit, 26 ShuffleNet, 27 RegNet (RegNetX-200MF);
- vision transformers: 28 VisionTransformer, 29 SwinMLP, 30 SwinTransformerV2 (cosine attention,
  continuous position bias, res-post-norm), 31 VisionAttention, 32 ConvolutionalVisionTransformer;
- recurrent: 33 VanillaRNN, 34 VanillaRNNHidden (hand-written cells), 35-38 LSTM variants
  (batch_first), 39-42 GRU variants (sequence first);
- sequence models: 43 MinGPTCausalAttention, 44 MiniGPTBlock, 45 UNetSoftmax,
  46/47 NetVlad with / without ghost clusters, 48/49 Mamba2 SSD (output / final state),
  50 ReLUSelfAttention.

All models run in training mode as KernelBench runs them (BatchNorm uses batch statistics,
dropout probabilities are 0.0). Image sizes have floors so every stride / pool / window still fits
at ``--scale-down 8``; channel widths of the CNNs are architectural and never scaled.
"""

import textwrap
from typing import Any, List


def _init(params: str, body: str) -> str:
    head = f"def __init__(self, {params}):" if params else "def __init__(self):"
    return head + "\n    super().__init__()\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")


def _fwd(params: str, body: str) -> str:
    return f"def forward(self, {params}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")


def _code(*parts: str) -> str:
    return "\n\n\n".join(textwrap.dedent(p).strip("\n") for p in parts)


IMG_INPUT = "return [torch.randn(batch_size, 3, image_size, image_size)]"

# ------------------------------------------------------------------------------------------------
# Building blocks (module-level code placed before `class Model` of the tasks that use them)
# ------------------------------------------------------------------------------------------------

MLP_INIT = _init("input_size, layer_sizes, output_size", """
    layers = []
    width = input_size
    for size in layer_sizes:
        layers += [nn.Linear(width, size), nn.ReLU()]
        width = size
    layers.append(nn.Linear(width, output_size))
    self.network = nn.Sequential(*layers)
""")

INCEPTION = '''
class InceptionModule(nn.Module):
    """GoogLeNet inception: 1x1 | 1x1 -> 3x3 | 1x1 -> 5x5 | 3x3 max pool -> 1x1, concatenated."""

    def __init__(self, in_channels, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5, pool_proj):
        super().__init__()
        self.branch1x1 = nn.Conv2d(in_channels, out_1x1, kernel_size=1)
        self.branch3x3 = nn.Sequential(
            nn.Conv2d(in_channels, reduce_3x3, kernel_size=1), nn.ReLU(inplace=True),
            nn.Conv2d(reduce_3x3, out_3x3, kernel_size=3, padding=1))
        self.branch5x5 = nn.Sequential(
            nn.Conv2d(in_channels, reduce_5x5, kernel_size=1), nn.ReLU(inplace=True),
            nn.Conv2d(reduce_5x5, out_5x5, kernel_size=5, padding=2))
        self.branch_pool = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, stride=1, padding=1),
            nn.Conv2d(in_channels, pool_proj, kernel_size=1))

    def forward(self, x):
        outs = [self.branch1x1(x), self.branch3x3(x), self.branch5x5(x), self.branch_pool(x)]
        return F.relu(torch.cat(outs, dim=1))
'''

BASIC_BLOCK = '''
class BasicBlock(nn.Module):
    """ResNet basic block: two 3x3 conv + BN, projection shortcut when the shape changes."""
    expansion = 1

    def __init__(self, in_channels, channels, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or in_channels != channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, channels, 1, stride=stride, bias=False), nn.BatchNorm2d(channels))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)
'''

BOTTLENECK = '''
class Bottleneck(nn.Module):
    """ResNet bottleneck: 1x1 reduce, 3x3 (strided), 1x1 expand by 4, projection shortcut."""
    expansion = 4

    def __init__(self, in_channels, channels, stride=1):
        super().__init__()
        out_channels = channels * self.expansion
        self.conv1 = nn.Conv2d(in_channels, channels, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.conv3 = nn.Conv2d(channels, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)
'''

RESNET_INIT = _init("layers, num_classes", """
    self.stem = nn.Sequential(
        nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
        nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
    in_channels = 64
    stages = []
    for i, (channels, blocks) in enumerate(zip((64, 128, 256, 512), layers)):
        for j in range(blocks):
            stride = 2 if i > 0 and j == 0 else 1
            stages.append(Block(in_channels, channels, stride))
            in_channels = channels * Block.expansion
    self.stages = nn.Sequential(*stages)
    self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
    self.fc = nn.Linear(in_channels, num_classes)
""")
RESNET_FWD = _fwd("x", """
    x = self.stages(self.stem(x))
    x = torch.flatten(self.avgpool(x), 1)
    return self.fc(x)
""")

VGG_INIT = _init("config, num_classes", """
    layers = []
    in_channels = 3
    for v in config:
        if v == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
            in_channels = v
    self.features = nn.Sequential(*layers)
    self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
    self.classifier = nn.Sequential(
        nn.Linear(512 * 7 * 7, 4096), nn.ReLU(inplace=True), nn.Dropout(p=0.0),
        nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(p=0.0),
        nn.Linear(4096, num_classes))
""")
VGG_FWD = _fwd("x", """
    x = self.avgpool(self.features(x))
    return self.classifier(torch.flatten(x, 1))
""")

DENSE_LAYER = '''
class DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv (bottleneck of 4 x growth), BN-ReLU-3x3 conv to `growth_rate` maps."""

    def __init__(self, in_features, growth_rate, bn_size=4):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(in_features)
        self.conv1 = nn.Conv2d(in_features, bn_size * growth_rate, kernel_size=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, padding=1, bias=False)
        self.dropout = nn.Dropout(0.0)

    def forward(self, x):
        out = self.conv1(F.relu(self.norm1(x)))
        out = self.conv2(F.relu(self.norm2(out)))
        return self.dropout(out)


class DenseBlock(nn.Module):
    """Each layer sees the concatenation of the block input and all earlier layers' outputs."""

    def __init__(self, num_layers, in_features, growth_rate):
        super().__init__()
        self.layers = nn.ModuleList(
            [DenseLayer(in_features + i * growth_rate, growth_rate) for i in range(num_layers)])

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(torch.cat(features, dim=1)))
        return torch.cat(features, dim=1)
'''

TRANSITION = '''
class TransitionLayer(nn.Module):
    """DenseNet transition: BN, ReLU, 1x1 conv (channel compression), 2x2 average pool."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.transition = nn.Sequential(
            nn.BatchNorm2d(in_features), nn.ReLU(inplace=True),
            nn.Conv2d(in_features, out_features, kernel_size=1, bias=False),
            nn.AvgPool2d(kernel_size=2, stride=2))

    def forward(self, x):
        return self.transition(x)
'''

DENSENET_INIT = _init("growth_rate, block_layers, num_classes", """
    self.stem = nn.Sequential(
        nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
        nn.ReLU(inplace=True), nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
    features = 64
    blocks = []
    for i, num_layers in enumerate(block_layers):
        blocks.append(DenseBlock(num_layers, features, growth_rate))
        features += num_layers * growth_rate
        if i != len(block_layers) - 1:
            blocks.append(TransitionLayer(features, features // 2))
            features //= 2
    self.blocks = nn.Sequential(*blocks)
    self.final_norm = nn.BatchNorm2d(features)
    self.classifier = nn.Linear(features, num_classes)
""")
DENSENET_FWD = _fwd("x", """
    x = F.relu(self.final_norm(self.blocks(self.stem(x))))
    x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
    return self.classifier(x)
""")

FIRE = '''
class FireModule(nn.Module):
    """SqueezeNet fire module: 1x1 squeeze, then 1x1 and 3x3 expands concatenated."""

    def __init__(self, in_channels, squeeze_channels, expand1x1_channels, expand3x3_channels):
        super().__init__()
        self.squeeze = nn.Conv2d(in_channels, squeeze_channels, kernel_size=1)
        self.expand1x1 = nn.Conv2d(squeeze_channels, expand1x1_channels, kernel_size=1)
        self.expand3x3 = nn.Conv2d(squeeze_channels, expand3x3_channels, kernel_size=3, padding=1)

    def forward(self, x):
        x = F.relu(self.squeeze(x))
        return torch.cat([F.relu(self.expand1x1(x)), F.relu(self.expand3x3(x))], dim=1)
'''

INVERTED_RESIDUAL = '''
class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, 1x1 linear projection (ReLU6 between)."""

    def __init__(self, in_channels, out_channels, stride, expand_ratio):
        super().__init__()
        hidden = in_channels * expand_ratio
        self.use_residual = stride == 1 and in_channels == out_channels
        layers = []
        if expand_ratio != 1:
            layers += [nn.Conv2d(in_channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True)]
        layers += [
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_residual:
            return x + self.conv(x)
        return self.conv(x)
'''

MBCONV = '''
class MBConv(nn.Module):
    """EfficientNet block: 1x1 expand, kxk depthwise, squeeze-excitation, 1x1 projection (SiLU)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, expand_ratio, se_ratio=0.25):
        super().__init__()
        hidden = in_channels * expand_ratio
        squeezed = max(1, int(in_channels * se_ratio))
        self.use_residual = stride == 1 and in_channels == out_channels
        layers = []
        if expand_ratio != 1:
            layers += [nn.Conv2d(in_channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.SiLU(inplace=True)]
        layers += [
            nn.Conv2d(hidden, hidden, kernel_size, stride, kernel_size // 2, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), nn.SiLU(inplace=True)]
        self.expand_depthwise = nn.Sequential(*layers)
        self.squeeze_excite = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Conv2d(hidden, squeezed, 1), nn.SiLU(inplace=True),
            nn.Conv2d(squeezed, hidden, 1), nn.Sigmoid())
        self.project = nn.Sequential(nn.Conv2d(hidden, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels))

    def forward(self, x):
        h = self.expand_depthwise(x)
        h = self.project(h * self.squeeze_excite(h))
        return x + h if self.use_residual else h
'''

EFFICIENTNET_HELPERS = '''
# EfficientNet-B0 stages: (expand ratio, kernel, stride, output channels, repeats).
B0_STAGES = [(1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
             (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)]


def round_filters(channels, width_mult, divisor=8):
    scaled = channels * width_mult
    rounded = max(divisor, int(scaled + divisor / 2) // divisor * divisor)
    return int(rounded + divisor if rounded < 0.9 * scaled else rounded)


def round_repeats(repeats, depth_mult):
    return int(math.ceil(repeats * depth_mult))
'''

EFFICIENTNET_INIT = _init("width_mult, depth_mult, num_classes", """
    stem = round_filters(32, width_mult)
    self.stem = nn.Sequential(
        nn.Conv2d(3, stem, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(stem), nn.SiLU(inplace=True))
    blocks = []
    in_channels = stem
    for expand, kernel, stride, channels, repeats in B0_STAGES:
        out_channels = round_filters(channels, width_mult)
        for i in range(round_repeats(repeats, depth_mult)):
            blocks.append(MBConv(in_channels, out_channels, kernel, stride if i == 0 else 1, expand))
            in_channels = out_channels
    self.blocks = nn.Sequential(*blocks)
    head = round_filters(1280, width_mult)
    self.head = nn.Sequential(
        nn.Conv2d(in_channels, head, 1, bias=False), nn.BatchNorm2d(head), nn.SiLU(inplace=True),
        nn.AdaptiveAvgPool2d(1))
    self.dropout = nn.Dropout(p=0.0)
    self.fc = nn.Linear(head, num_classes)
""")
EFFICIENTNET_FWD = _fwd("x", """
    x = self.head(self.blocks(self.stem(x)))
    return self.fc(self.dropout(torch.flatten(x, 1)))
""")

SHUFFLE = '''
def channel_shuffle(x, groups):
    batch, channels, height, width = x.size()
    x = x.view(batch, groups, channels // groups, height, width)
    x = x.transpose(1, 2).contiguous()
    return x.view(batch, channels, height, width)


class ShuffleUnit(nn.Module):
    """ShuffleNet unit: grouped 1x1, channel shuffle, 3x3 depthwise, grouped 1x1; a stride-2 unit
    concatenates a 3x3 average-pooled shortcut, a stride-1 unit adds the input."""

    def __init__(self, in_channels, out_channels, groups, stride=1, group_first=True):
        super().__init__()
        self.groups, self.stride = groups, stride
        branch_out = out_channels - in_channels if stride == 2 else out_channels
        mid = out_channels // 4
        self.conv1 = nn.Conv2d(in_channels, mid, 1, groups=groups if group_first else 1, bias=False)
        self.bn1 = nn.BatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, stride=stride, padding=1, groups=mid, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv3 = nn.Conv2d(mid, branch_out, 1, groups=groups, bias=False)
        self.bn3 = nn.BatchNorm2d(branch_out)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = channel_shuffle(out, self.groups)
        out = self.bn2(self.conv2(out))
        out = self.bn3(self.conv3(out))
        if self.stride == 2:
            return F.relu(torch.cat([F.avg_pool2d(x, 3, stride=2, padding=1), out], dim=1))
        return F.relu(x + out)
'''

REGNET_BLOCK = '''
class XBlock(nn.Module):
    """RegNetX block: 1x1, 3x3 group conv (fixed group width, strided), 1x1, residual."""

    def __init__(self, in_channels, out_channels, stride, group_width):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, 3, stride, 1, groups=out_channels // group_width, bias=False),
            nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels))
        self.shortcut = nn.Identity()
        if stride != 1 or in_channels != out_channels:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride, bias=False), nn.BatchNorm2d(out_channels))

    def forward(self, x):
        return F.relu(self.body(x) + self.shortcut(x))
'''

WINDOWS = '''
def window_partition(x, window):
    """(b, h, w, c) -> (b * windows, window * window, c)"""
    b, h, w, c = x.shape
    x = x.view(b, h // window, window, w // window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(-1, window * window, c)


def window_reverse(windows, window, h, w, b):
    """(b * windows, window * window, c) -> (b, h, w, c)"""
    c = windows.shape[-1]
    x = windows.view(b, h // window, w // window, window, window, c)
    return x.permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(0.0)

    def forward(self, x):
        return self.drop(self.fc2(self.act(self.fc1(x))))


class PatchMerging(nn.Module):
    """2x2 neighbouring tokens concatenated (4C) and projected to 2C; Swin V2 normalises after."""

    def __init__(self, resolution, dim, post_norm=False):
        super().__init__()
        self.resolution, self.post_norm = resolution, post_norm
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = nn.LayerNorm(2 * dim if post_norm else 4 * dim)

    def forward(self, x):
        b, _, c = x.shape
        r = self.resolution
        x = x.view(b, r, r, c)
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], dim=-1)
        x = x.view(b, -1, 4 * c)
        if self.post_norm:
            return self.norm(self.reduction(x))
        return self.reduction(self.norm(x))
'''

SWIN_MLP_BLOCK = '''
class SwinMLPBlock(nn.Module):
    """Swin-MLP block: the window attention is a per-head token-mixing MLP (grouped 1x1 Conv1d)
    over each window; the shifted variant pads the map instead of rolling it."""

    def __init__(self, dim, resolution, num_heads, window_size, shift_size, mlp_ratio=4.0):
        super().__init__()
        if resolution <= window_size:
            window_size, shift_size = resolution, 0
        self.resolution, self.num_heads, self.window_size = resolution, num_heads, window_size
        self.pad = (window_size - shift_size, shift_size) if shift_size else (0, 0)
        self.norm1 = nn.LayerNorm(dim)
        tokens = num_heads * window_size * window_size
        self.spatial_mlp = nn.Conv1d(tokens, tokens, kernel_size=1, groups=num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))

    def forward(self, x):
        b, _, c = x.shape
        r, ws, heads = self.resolution, self.window_size, self.num_heads
        top, bottom = self.pad
        h = self.norm1(x).view(b, r, r, c)
        h = F.pad(h, [0, 0, top, bottom, top, bottom])
        padded = r + top + bottom
        win = window_partition(h, ws)
        win = win.view(-1, ws * ws, heads, c // heads).transpose(1, 2).reshape(-1, heads * ws * ws, c // heads)
        win = self.spatial_mlp(win)
        win = win.view(-1, heads, ws * ws, c // heads).transpose(1, 2).reshape(-1, ws * ws, c)
        h = window_reverse(win, ws, padded, padded, b)[:, top:top + r, top:top + r, :]
        x = x + h.reshape(b, r * r, c)
        return x + self.mlp(self.norm2(x))
'''

SWIN_V2_BLOCK = '''
class WindowAttentionV2(nn.Module):
    """Scaled cosine attention in a window with a learned (clamped) logit scale and a continuous
    relative position bias from a small MLP over log-spaced coordinates."""

    def __init__(self, dim, window_size, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((num_heads, 1, 1))))
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512), nn.ReLU(inplace=True), nn.Linear(512, num_heads, bias=False))
        ws = window_size
        coords = torch.arange(-(ws - 1), ws, dtype=torch.float32)
        table = torch.stack(torch.meshgrid(coords, coords, indexing="ij"), dim=-1).unsqueeze(0)
        table = table / max(ws - 1, 1) * 8
        table = torch.sign(table) * torch.log2(torch.abs(table) + 1.0) / math.log2(8)
        self.register_buffer("relative_coords_table", table, persistent=False)
        pos = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")).flatten(1)
        rel = (pos[:, :, None] - pos[:, None, :]).permute(1, 2, 0) + (ws - 1)
        self.register_buffer("relative_position_index", rel[:, :, 0] * (2 * ws - 1) + rel[:, :, 1],
                             persistent=False)
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim))
        self.v_bias = nn.Parameter(torch.zeros(dim))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask):
        bw, n, c = x.shape
        heads = self.num_heads
        bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias), self.v_bias))
        qkv = F.linear(x, self.qkv.weight, bias).reshape(bw, n, 3, heads, c // heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * torch.clamp(self.logit_scale, max=math.log(1.0 / 0.01)).exp()
        table = self.cpb_mlp(self.relative_coords_table).view(-1, heads)
        pos_bias = table[self.relative_position_index.view(-1)].view(n, n, heads).permute(2, 0, 1)
        attn = attn + 16 * torch.sigmoid(pos_bias).unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(bw // nw, nw, heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(bw, heads, n, n)
        attn = torch.softmax(attn, dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(bw, n, c))


class SwinV2Block(nn.Module):
    """(Shifted) window attention and MLP, each normalised after the branch (res-post-norm)."""

    def __init__(self, dim, resolution, num_heads, window_size, shift_size, mlp_ratio=4.0):
        super().__init__()
        if resolution <= window_size:
            window_size, shift_size = resolution, 0
        self.resolution, self.window_size, self.shift_size = resolution, window_size, shift_size
        self.attn = WindowAttentionV2(dim, window_size, num_heads)
        self.norm1 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, int(dim * mlp_ratio))
        self.norm2 = nn.LayerNorm(dim)
        mask = None
        if shift_size:
            regions = torch.zeros(1, resolution, resolution, 1)
            spans = (slice(0, -window_size), slice(-window_size, -shift_size), slice(-shift_size, None))
            label = 0
            for hs in spans:
                for wsl in spans:
                    regions[:, hs, wsl, :] = label
                    label += 1
            ids = window_partition(regions, window_size).squeeze(-1)
            mask = ids.unsqueeze(1) - ids.unsqueeze(2)
            mask = mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)
        self.register_buffer("attn_mask", mask, persistent=False)

    def forward(self, x):
        b, _, c = x.shape
        r, ws, s = self.resolution, self.window_size, self.shift_size
        h = x.view(b, r, r, c)
        if s:
            h = torch.roll(h, shifts=(-s, -s), dims=(1, 2))
        h = window_reverse(self.attn(window_partition(h, ws), self.attn_mask), ws, r, r, b)
        if s:
            h = torch.roll(h, shifts=(s, s), dims=(1, 2))
        x = x + self.norm1(h.reshape(b, r * r, c))
        return x + self.norm2(self.mlp(x))
'''

SWIN_INIT = _init("image_size, patch_size, embed_dim, depths, num_heads, window_size, num_classes", """
    self.patch_embed = nn.Conv2d(3, embed_dim, kernel_size=patch_size, stride=patch_size)
    self.patch_norm = nn.LayerNorm(embed_dim)
    r, dim = image_size // patch_size, embed_dim
    layers = []
    for i, (depth, heads) in enumerate(zip(depths, num_heads)):
        for j in range(depth):
            layers.append(BLOCK(dim, r, heads, window_size, 0 if j % 2 == 0 else window_size // 2))
        if i != len(depths) - 1:
            layers.append(PatchMerging(r, dim, POST_NORM))
            r, dim = r // 2, dim * 2
    self.layers = nn.Sequential(*layers)
    self.norm = nn.LayerNorm(dim)
    self.head = nn.Linear(dim, num_classes)
""")
SWIN_FWD = _fwd("x", """
    x = self.patch_embed(x).flatten(2).transpose(1, 2)
    x = self.layers(self.patch_norm(x))
    return self.head(self.norm(x).mean(dim=1))
""")

CVT = '''
class ConvEmbed(nn.Module):
    """Overlapping strided conv patch embedding, LayerNorm over the channels of each token."""

    def __init__(self, in_channels, dim, kernel_size, stride, padding):
        super().__init__()
        self.proj = nn.Conv2d(in_channels, dim, kernel_size, stride, padding)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(self.proj(x).flatten(2).transpose(1, 2))


class ConvProjection(nn.Module):
    """Depthwise 3x3 conv + BatchNorm on the token map, flattened back to tokens, then linear."""

    def __init__(self, dim, stride):
        super().__init__()
        self.conv = nn.Conv2d(dim, dim, 3, stride, 1, groups=dim, bias=False)
        self.bn = nn.BatchNorm2d(dim)
        self.linear = nn.Linear(dim, dim)

    def forward(self, fmap):
        return self.linear(self.bn(self.conv(fmap)).flatten(2).transpose(1, 2))


class ConvAttention(nn.Module):
    """Multi-head attention whose q / k / v come from convolutional projections (k, v strided);
    a class token, when present, bypasses the convolutions."""

    def __init__(self, dim, num_heads, kv_stride, with_cls):
        super().__init__()
        self.num_heads, self.with_cls = num_heads, with_cls
        self.scale = (dim // num_heads) ** -0.5
        self.q = ConvProjection(dim, 1)
        self.k = ConvProjection(dim, kv_stride)
        self.v = ConvProjection(dim, kv_stride)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, h, w):
        b, n, c = x.shape
        heads = self.num_heads
        tokens = x[:, 1:] if self.with_cls else x
        fmap = tokens.transpose(1, 2).reshape(b, c, h, w)
        q, k, v = self.q(fmap), self.k(fmap), self.v(fmap)
        if self.with_cls:
            cls = x[:, :1]
            q, k, v = torch.cat([cls, q], 1), torch.cat([cls, k], 1), torch.cat([cls, v], 1)
        q = q.view(b, -1, heads, c // heads).transpose(1, 2)
        k = k.view(b, -1, heads, c // heads).transpose(1, 2)
        v = v.view(b, -1, heads, c // heads).transpose(1, 2)
        attn = torch.softmax((q @ k.transpose(-2, -1)) * self.scale, dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b, n, c))


class CvTBlock(nn.Module):
    def __init__(self, dim, num_heads, with_cls, mlp_ratio=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = ConvAttention(dim, num_heads, 2, with_cls)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * mlp_ratio), nn.GELU(), nn.Linear(dim * mlp_ratio, dim))

    def forward(self, x, h, w):
        x = x + self.attn(self.norm1(x), h, w)
        return x + self.mlp(self.norm2(x))


class CvTStage(nn.Module):
    """Conv embedding then transformer blocks; returns the tokens and the map's height/width."""

    def __init__(self, in_channels, dim, depth, num_heads, kernel_size, stride, padding, with_cls):
        super().__init__()
        self.embed = ConvEmbed(in_channels, dim, kernel_size, stride, padding)
        self.stride, self.padding, self.kernel_size = stride, padding, kernel_size
        self.with_cls = with_cls
        if with_cls:
            self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.blocks = nn.ModuleList([CvTBlock(dim, num_heads, with_cls) for _ in range(depth)])

    def forward(self, x):
        h = (x.shape[2] + 2 * self.padding - self.kernel_size) // self.stride + 1
        w = (x.shape[3] + 2 * self.padding - self.kernel_size) // self.stride + 1
        x = self.embed(x)
        if self.with_cls:
            x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
        for block in self.blocks:
            x = block(x, h, w)
        return x, h, w
'''

NEW_GELU = '''
class NewGELU(nn.Module):
    """GELU by the tanh approximation, as GPT-2 uses it."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))
'''

# Causal self-attention with a lower-triangular mask buffer. ACT is the attention nonlinearity.
CAUSAL_INIT = _init("n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen", """
    assert n_embd % n_head == 0
    self.c_attn = nn.Linear(n_embd, 3 * n_embd)
    self.c_proj = nn.Linear(n_embd, n_embd)
    self.attn_dropout = nn.Dropout(attn_pdrop)
    self.resid_dropout = nn.Dropout(resid_pdrop)
    self.register_buffer("bias", torch.tril(torch.ones(max_seqlen, max_seqlen)).view(1, 1, max_seqlen, max_seqlen))
    self.n_head = n_head
    self.n_embd = n_embd
""")
CAUSAL_FWD = _fwd("x", """
    B, T, C = x.size()
    q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
    q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
    k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
    v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
    att = ACT
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    return self.resid_dropout(self.c_proj(y))
""")
CAUSAL_CLASS = "class CausalSelfAttention(nn.Module):\n    \"\"\"Multi-head masked self-attention.\"\"\"\n\n" + \
    textwrap.indent(CAUSAL_INIT + "\n\n" + CAUSAL_FWD.replace("ACT", "self.attn_dropout(F.softmax(att, dim=-1))"),
                    "    ")

UNET = '''
class DoubleConv(nn.Module):
    """(3x3 conv, BatchNorm, ReLU) twice."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False), nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False), nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True))

    def forward(self, x):
        return self.block(x)
'''

NETVLAD_INIT = _init("cluster_size, feature_size, ghost_clusters", """
    self.cluster_size = cluster_size
    self.feature_size = feature_size
    clusters = cluster_size + ghost_clusters
    self.clusters = nn.Parameter(torch.randn(feature_size, clusters) * (1 / math.sqrt(feature_size)))
    self.batch_norm = nn.BatchNorm1d(clusters)
    self.clusters2 = nn.Parameter(torch.randn(1, feature_size, cluster_size) * (1 / math.sqrt(feature_size)))
    self.out_dim = cluster_size * feature_size
""")
NETVLAD_FWD = _fwd("x", """
    b, n, d = x.shape
    flat = x.reshape(b * n, d)
    assignment = F.softmax(self.batch_norm(flat @ self.clusters), dim=1)
    assignment = assignment[:, :self.cluster_size].reshape(b, n, self.cluster_size)  # ghosts dropped
    a = assignment.sum(dim=1, keepdim=True) * self.clusters2                         # (b, d, k)
    vlad = torch.matmul(assignment.transpose(1, 2), x).transpose(1, 2) - a           # (b, d, k)
    vlad = F.normalize(vlad, dim=1)                                                  # intra-normalisation
    return F.normalize(vlad.reshape(b, self.out_dim), dim=1)
""")

SEGSUM = '''
def segsum(x):
    """out[..., i, j] = x[..., j+1] + ... + x[..., i] for j <= i and -inf above the diagonal,
    by a masked cumulative sum (stable, no differences of large prefix sums)."""
    t = x.size(-1)
    x = x.unsqueeze(-1).expand(*x.size(), t)
    strict = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=-1)
    seg = torch.cumsum(x.masked_fill(~strict, 0), dim=-2)
    keep = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=0)
    return seg.masked_fill(~keep, float("-inf"))
'''

MAMBA_INIT = _init("batch_size, seq_length, n_heads, d_head, d_state, block_len", """
    assert seq_length % block_len == 0
    self.block_len = block_len
    self.A = nn.Parameter(torch.randn(batch_size, seq_length, n_heads))
    self.B = nn.Parameter(torch.randn(batch_size, seq_length, n_heads, d_state))
    self.C = nn.Parameter(torch.randn(batch_size, seq_length, n_heads, d_state))
""")
MAMBA_FWD_HEAD = """
    b, length, h, p = X.shape
    c, q = length // self.block_len, self.block_len
    x = X.reshape(b, c, q, h, p)
    A = self.A.reshape(b, c, q, h).permute(0, 3, 1, 2)            # (b, h, chunks, q)
    B = self.B.reshape(b, c, q, h, -1)
    C = self.C.reshape(b, c, q, h, -1)
    A_cumsum = torch.cumsum(A, dim=-1)
    # 1. outputs within each chunk (the diagonal blocks)
    L = torch.exp(segsum(A))
    Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", C, B, L, x)
    # 2. each chunk's state, from its own inputs
    decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
    states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B, decay_states, x)
    # 3. recurrence over chunk boundaries (zero initial state)
    states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)
    decay_chunk = torch.exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
    new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
"""
MAMBA_FWD_Y = MAMBA_FWD_HEAD + """
    # 4. state -> output within each chunk
    states = new_states[:, :-1]
    Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", C, states, torch.exp(A_cumsum))
    return (Y_diag + Y_off).reshape(b, length, h, p)
"""
MAMBA_FWD_STATE = MAMBA_FWD_HEAD + """
    return new_states[:, -1]
"""


# ------------------------------------------------------------------------------------------------
# The 50 tasks
# ------------------------------------------------------------------------------------------------

def tasks(Task: Any, S: Any) -> List[Any]:
    out: List[Any] = []

    def add(name, doc, consts, forward, inputs, **kw):
        out.append(Task(3, name, doc, consts, forward, inputs, **kw))

    def image(value=224, lo=64, mult=32):
        return S(value, lo, mult)

    # --- 1-3: MLPs ---------------------------------------------------------------------------
    mlp_fwd = _fwd("x", "return self.network(x)")
    mlp_in = "return [torch.randn(batch_size, input_size)]"
    add("MLP", "Linear-ReLU stack: input -> 2048 -> 1024 -> output.",
        dict(batch_size=S(128, 2), input_size=S(4096, 64), hidden1=S(2048, 32), hidden2=S(1024, 16),
             output_size=S(512, 8)),
        mlp_fwd, mlp_in, init=MLP_INIT, init_inputs="[input_size, [hidden1, hidden2], output_size]")
    add("ShallowWideMLP", "Two very wide hidden layers.",
        dict(batch_size=S(128, 2), input_size=S(1024, 16), hidden_size=S(8192, 64), output_size=1000),
        mlp_fwd, mlp_in, init=MLP_INIT, init_inputs="[input_size, [hidden_size, hidden_size], output_size]")
    add("DeepNarrowMLP", "Sixteen narrow hidden layers.",
        dict(batch_size=S(128, 2), input_size=S(1024, 16), hidden_size=S(256, 16), num_layers=16, output_size=10),
        mlp_fwd, mlp_in, init=MLP_INIT, init_inputs="[input_size, [hidden_size] * num_layers, output_size]")

    # --- 4-12: classic CNNs ----------------------------------------------------------------------
    add("LeNet5", "LeNet-5 on 32x32 grey images: two conv/max-pool stages, three fully connected layers.",
        dict(batch_size=S(8, 1), num_classes=10),
        _fwd("x", """
            x = F.max_pool2d(F.relu(self.conv1(x)), kernel_size=2, stride=2)
            x = F.max_pool2d(F.relu(self.conv2(x)), kernel_size=2, stride=2)
            x = x.view(x.size(0), -1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)
        """),
        "return [torch.randn(batch_size, 1, 32, 32)]",
        init=_init("num_classes", """
            self.conv1 = nn.Conv2d(1, 6, kernel_size=5, stride=1)
            self.conv2 = nn.Conv2d(6, 16, kernel_size=5, stride=1)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, num_classes)
        """),
        init_inputs="[num_classes]")
    add("AlexNet", "AlexNet: five convolutions with max pooling, adaptive pool to 6x6, three-layer classifier.",
        dict(batch_size=S(10, 1), image_size=image(), num_classes=1000),
        _fwd("x", """
            x = self.avgpool(self.features(x))
            return self.classifier(torch.flatten(x, 1))
        """),
        IMG_INPUT,
        init=_init("num_classes", """
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2),
                nn.Conv2d(96, 256, kernel_size=5, padding=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2),
                nn.Conv2d(256, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
                nn.Conv2d(384, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
                nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2))
            self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
            self.classifier = nn.Sequential(
                nn.Dropout(p=0.0), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
                nn.Dropout(p=0.0), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
                nn.Linear(4096, num_classes))
        """),
        init_inputs="[num_classes]")
    add("GoogleNetInceptionModule", "One GoogLeNet inception module (4a: 480 -> 512 channels).",
        dict(batch_size=S(10, 1), in_channels=480, out_1x1=192, reduce_3x3=96, out_3x3=208, reduce_5x5=16,
             out_5x5=48, pool_proj=64, height=S(112, 8), width=S(112, 8)),
        _fwd("x", "return self.inception(x)"),
        "return [torch.randn(batch_size, in_channels, height, width)]",
        init=_init("in_channels, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5, pool_proj", """
            self.inception = InceptionModule(in_channels, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5,
                                             pool_proj)
        """),
        init_inputs="[in_channels, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5, pool_proj]",
        prelude=INCEPTION)
    add("GoogleNetInceptionV1", "GoogLeNet (Inception v1): stem, nine inception modules, global pool, classifier.",
        dict(batch_size=S(10, 1), image_size=image(), num_classes=1000),
        _fwd("x", """
            x = self.inception5(self.inception4(self.inception3(self.stem(x))))
            x = torch.flatten(self.avgpool(x), 1)
            return self.fc(self.dropout(x))
        """),
        IMG_INPUT,
        init=_init("num_classes", """
            self.stem = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3), nn.ReLU(inplace=True),
                nn.MaxPool2d(3, stride=2, padding=1),
                nn.Conv2d(64, 64, kernel_size=1), nn.ReLU(inplace=True),
                nn.Conv2d(64, 192, kernel_size=3, padding=1), nn.ReLU(inplace=True),
                nn.MaxPool2d(3, stride=2, padding=1))
            self.inception3 = nn.Sequential(
                InceptionModule(192, 64, 96, 128, 16, 32, 32),
                InceptionModule(256, 128, 128, 192, 32, 96, 64),
                nn.MaxPool2d(3, stride=2, padding=1))
            self.inception4 = nn.Sequential(
                InceptionModule(480, 192, 96, 208, 16, 48, 64),
                InceptionModule(512, 160, 112, 224, 24, 64, 64),
                InceptionModule(512, 128, 128, 256, 24, 64, 64),
                InceptionModule(512, 112, 144, 288, 32, 64, 64),
                InceptionModule(528, 256, 160, 320, 32, 128, 128),
                nn.MaxPool2d(3, stride=2, padding=1))
            self.inception5 = nn.Sequential(
                InceptionModule(832, 256, 160, 320, 32, 128, 128),
                InceptionModule(832, 384, 192, 384, 48, 128, 128))
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.dropout = nn.Dropout(0.0)
            self.fc = nn.Linear(1024, num_classes)
        """),
        init_inputs="[num_classes]", prelude=INCEPTION)
    add("ResNetBasicBlock",
        "One strided ResNet basic block with a 1x1 projection shortcut (BatchNorm in training mode).",
        dict(batch_size=S(10, 1), in_channels=64, out_channels=128, stride=2, height=S(224, 16, 2),
             width=S(224, 16, 2)),
        _fwd("x", "return self.block(x)"),
        "return [torch.randn(batch_size, in_channels, height, width)]",
        init=_init("in_channels, out_channels, stride", "self.block = BasicBlock(in_channels, out_channels, stride)"),
        init_inputs="[in_channels, out_channels, stride]", prelude=BASIC_BLOCK)
    add("ResNet18", "ResNet-18: basic blocks [2, 2, 2, 2].",
        dict(batch_size=S(8, 1), image_size=image(), layers=[2, 2, 2, 2], num_classes=1000),
        RESNET_FWD, IMG_INPUT, init=RESNET_INIT.replace("Block", "BasicBlock"),
        init_inputs="[layers, num_classes]", prelude=BASIC_BLOCK)
    add("ResNet101", "ResNet-101: bottleneck blocks [3, 4, 23, 3].",
        dict(batch_size=S(10, 1), image_size=image(), layers=[3, 4, 23, 3], num_classes=1000),
        RESNET_FWD, IMG_INPUT, init=RESNET_INIT.replace("Block", "Bottleneck"),
        init_inputs="[layers, num_classes]", prelude=BOTTLENECK)
    vgg16 = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    vgg19 = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"]
    for name, cfg in (("VGG16", vgg16), ("VGG19", vgg19)):
        add(name, f"{name}: 3x3 convolutions with ReLU and max pooling, adaptive pool to 7x7, three-layer classifier.",
            dict(batch_size=S(10, 1), image_size=image(), config=cfg, num_classes=1000),
            VGG_FWD, IMG_INPUT, init=VGG_INIT, init_inputs="[config, num_classes]")

    # --- 13-16: DenseNet -------------------------------------------------------------------------
    add("DenseNet121TransitionLayer",
        "DenseNet transition: BatchNorm, ReLU, 1x1 conv halving the channels, 2x2 avg pool.",
        dict(batch_size=S(16, 2), num_input_features=256, num_output_features=128, height=S(112, 8, 2),
             width=S(112, 8, 2)),
        _fwd("x", "return self.transition(x)"),
        "return [torch.randn(batch_size, num_input_features, height, width)]",
        init=_init("num_input_features, num_output_features",
                   "self.transition = TransitionLayer(num_input_features, num_output_features)"),
        init_inputs="[num_input_features, num_output_features]", prelude=TRANSITION)
    add("DenseNet121DenseBlock", "DenseNet dense block of six layers (growth rate 32), concatenating every output.",
        dict(batch_size=S(10, 1), num_layers=6, num_input_features=64, growth_rate=32, height=S(112, 8),
             width=S(112, 8)),
        _fwd("x", "return self.block(x)"),
        "return [torch.randn(batch_size, num_input_features, height, width)]",
        init=_init("num_layers, num_input_features, growth_rate",
                   "self.block = DenseBlock(num_layers, num_input_features, growth_rate)"),
        init_inputs="[num_layers, num_input_features, growth_rate]", prelude=DENSE_LAYER)
    for name, blocks in (("DenseNet121", [6, 12, 24, 16]), ("DenseNet201", [6, 12, 48, 32])):
        add(name, f"{name}: stem, dense blocks {blocks} with transitions, BatchNorm, global pool, linear.",
            dict(batch_size=S(10, 1), image_size=image(), growth_rate=32, block_layers=blocks, num_classes=1000),
            DENSENET_FWD, IMG_INPUT, init=DENSENET_INIT, init_inputs="[growth_rate, block_layers, num_classes]",
            prelude=_code(DENSE_LAYER, TRANSITION))

    # --- 17-27: mobile / efficient CNNs ---------------------------------------------------------
    add("SqueezeNetFireModule", "One SqueezeNet fire module (squeeze 16, expand 64 + 64).",
        dict(batch_size=S(10, 1), in_channels=128, squeeze_channels=16, expand1x1_channels=64,
             expand3x3_channels=64, height=S(224, 8), width=S(224, 8)),
        _fwd("x", "return self.fire(x)"),
        "return [torch.randn(batch_size, in_channels, height, width)]",
        init=_init("in_channels, squeeze_channels, expand1x1_channels, expand3x3_channels",
                   "self.fire = FireModule(in_channels, squeeze_channels, expand1x1_channels, expand3x3_channels)"),
        init_inputs="[in_channels, squeeze_channels, expand1x1_channels, expand3x3_channels]", prelude=FIRE)
    add("SqueezeNet", "SqueezeNet 1.0: 7x7 stem, eight fire modules, ceil-mode max pools, conv classifier.",
        dict(batch_size=S(10, 1), image_size=image(), num_classes=1000),
        _fwd("x", "return torch.flatten(self.classifier(self.features(x)), 1)"),
        IMG_INPUT,
        init=_init("num_classes", """
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                FireModule(96, 16, 64, 64), FireModule(128, 16, 64, 64), FireModule(128, 32, 128, 128),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                FireModule(256, 32, 128, 128), FireModule(256, 48, 192, 192), FireModule(384, 48, 192, 192),
                FireModule(384, 64, 256, 256),
                nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
                FireModule(512, 64, 256, 256))
            self.classifier = nn.Sequential(
                nn.Dropout(p=0.0), nn.Conv2d(512, num_classes, kernel_size=1), nn.ReLU(inplace=True),
                nn.AdaptiveAvgPool2d((1, 1)))
        """),
        init_inputs="[num_classes]", prelude=FIRE)
    add("MobileNetV1", "MobileNet v1: depthwise-separable conv stack (BatchNorm, ReLU), width multiplier alpha.",
        dict(batch_size=S(10, 1), image_size=image(), input_channels=3, num_classes=1000, alpha=1.0),
        _fwd("x", "return self.fc(torch.flatten(self.model(x), 1))"),
        "return [torch.randn(batch_size, input_channels, image_size, image_size)]",
        init=_init("num_classes, input_channels, alpha", """
            def conv_bn(inp, oup, stride):
                return nn.Sequential(
                    nn.Conv2d(inp, oup, 3, stride, 1, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))

            def conv_dw(inp, oup, stride):
                return nn.Sequential(
                    nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), nn.BatchNorm2d(inp),
                    nn.ReLU(inplace=True),
                    nn.Conv2d(inp, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))

            plan = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2)]
            plan += [(512, 512, 1)] * 5 + [(512, 1024, 2), (1024, 1024, 1)]
            layers = [conv_bn(input_channels, int(32 * alpha), 2)]
            layers += [conv_dw(int(i * alpha), int(o * alpha), s) for i, o, s in plan]
            self.model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1))
            self.fc = nn.Linear(int(1024 * alpha), num_classes)
        """),
        init_inputs="[num_classes, input_channels, alpha]")
    add("MobileNetV2", "MobileNet v2: inverted residual blocks with ReLU6 and linear bottlenecks.",
        dict(batch_size=S(10, 1), image_size=image(), num_classes=1000),
        _fwd("x", "return self.classifier(torch.flatten(self.features(x), 1))"),
        IMG_INPUT,
        init=_init("num_classes", """
            # (expand ratio, output channels, repeats, first stride)
            settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                        (6, 160, 3, 2), (6, 320, 1, 1)]
            layers = [nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(inplace=True)]
            in_channels = 32
            for t, c, n, s in settings:
                for i in range(n):
                    layers.append(InvertedResidual(in_channels, c, s if i == 0 else 1, t))
                    in_channels = c
            layers += [nn.Conv2d(in_channels, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6(inplace=True),
                       nn.AdaptiveAvgPool2d((1, 1))]
            self.features = nn.Sequential(*layers)
            self.classifier = nn.Sequential(nn.Dropout(0.0), nn.Linear(1280, num_classes))
        """),
        init_inputs="[num_classes]", prelude=INVERTED_RESIDUAL)
    add("EfficientNetMBConv", "One EfficientNet MBConv block (expand 6, 5x5 depthwise, squeeze-excitation, residual).",
        dict(batch_size=S(10, 1), in_channels=80, out_channels=80, kernel_size=5, stride=1, expand_ratio=6,
             height=S(112, 8), width=S(112, 8)),
        _fwd("x", "return self.block(x)"),
        "return [torch.randn(batch_size, in_channels, height, width)]",
        init=_init("in_channels, out_channels, kernel_size, stride, expand_ratio",
                   "self.block = MBConv(in_channels, out_channels, kernel_size, stride, expand_ratio)"),
        init_inputs="[in_channels, out_channels, kernel_size, stride, expand_ratio]", prelude=MBCONV)
    for name, width, depth, res in (("EfficientNetB0", 1.0, 1.0, 224), ("EfficientNetB1", 1.0, 1.1, 240),
                                    ("EfficientNetB2", 1.1, 1.2, 260)):
        add(name, f"{name}: MBConv stages of B0 scaled by width {width} and depth {depth}, SiLU, global pool.",
            dict(batch_size=S(10, 1), image_size=S(res, 64), width_mult=width, depth_mult=depth, num_classes=1000),
            EFFICIENTNET_FWD, IMG_INPUT, init=EFFICIENTNET_INIT, init_inputs="[width_mult, depth_mult, num_classes]",
            prelude=_code(MBCONV, EFFICIENTNET_HELPERS))
    add("ShuffleNetUnit", "One ShuffleNet unit (3 groups): grouped 1x1, channel shuffle, depthwise 3x3, residual add.",
        dict(batch_size=S(10, 1), in_channels=240, out_channels=240, groups=3, height=S(112, 8), width=S(112, 8)),
        _fwd("x", "return self.unit(x)"),
        "return [torch.randn(batch_size, in_channels, height, width)]",
        init=_init("in_channels, out_channels, groups", "self.unit = ShuffleUnit(in_channels, out_channels, groups)"),
        init_inputs="[in_channels, out_channels, groups]", prelude=SHUFFLE)
    add("ShuffleNet", "ShuffleNet v1 (g = 3): strided units concatenate a pooled shortcut, stages of 4, 8 and 4 units.",
        dict(batch_size=S(10, 1), image_size=image(), groups=3, stages_out_channels=[240, 480, 960],
             stages_repeats=[4, 8, 4], num_classes=1000),
        _fwd("x", """
            x = self.stages(self.stem(x))
            x = F.adaptive_avg_pool2d(x, 1).flatten(1)
            return self.fc(x)
        """),
        IMG_INPUT,
        init=_init("groups, stages_out_channels, stages_repeats, num_classes", """
            self.stem = nn.Sequential(
                nn.Conv2d(3, 24, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(24), nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2, padding=1))
            units = []
            in_channels = 24
            for out_channels, repeats in zip(stages_out_channels, stages_repeats):
                units.append(ShuffleUnit(in_channels, out_channels, groups, 2, group_first=in_channels != 24))
                units += [ShuffleUnit(out_channels, out_channels, groups) for _ in range(repeats - 1)]
                in_channels = out_channels
            self.stages = nn.Sequential(*units)
            self.fc = nn.Linear(in_channels, num_classes)
        """),
        init_inputs="[groups, stages_out_channels, stages_repeats, num_classes]", prelude=SHUFFLE)
    add("RegNet", "RegNetX-200MF: stem, four stages of X blocks (group width 8), global pool, linear.",
        dict(batch_size=S(8, 1), image_size=image(), depths=[1, 1, 4, 7], widths=[24, 56, 152, 368],
             group_width=8, num_classes=1000),
        _fwd("x", """
            x = self.stages(self.stem(x))
            return self.fc(torch.flatten(self.pool(x), 1))
        """),
        IMG_INPUT,
        init=_init("depths, widths, group_width, num_classes", """
            self.stem = nn.Sequential(
                nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True))
            blocks = []
            in_channels = 32
            for depth, width in zip(depths, widths):
                for i in range(depth):
                    blocks.append(XBlock(in_channels, width, 2 if i == 0 else 1, group_width))
                    in_channels = width
            self.stages = nn.Sequential(*blocks)
            self.pool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(in_channels, num_classes)
        """),
        init_inputs="[depths, widths, group_width, num_classes]", prelude=REGNET_BLOCK)

    # --- 28-32: vision transformers --------------------------------------------------------------
    add("VisionTransformer",
        "ViT: 16x16 patches, class token and learned positional embedding, pre-norm encoder, MLP head.",
        dict(batch_size=S(8, 1), image_size=S(224, 32, 16), patch_size=16, num_classes=1000, dim=S(768, 96, 96),
             depth=6, heads=12, mlp_dim=S(3072, 384, 384), channels=3),
        _fwd("img", """
            b, c, h, w = img.shape
            p = self.patch_size
            x = img.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
            x = self.patch_to_embedding(x.reshape(b, (h // p) * (w // p), c * p * p))
            x = torch.cat((self.cls_token.expand(b, -1, -1), x), dim=1) + self.pos_embedding
            x = self.transformer(self.dropout(x))
            return self.mlp_head(self.norm(x[:, 0]))
        """),
        "return [torch.randn(batch_size, channels, image_size, image_size)]",
        init=_init("image_size, patch_size, num_classes, dim, depth, heads, mlp_dim, channels=3, dropout=0.0, "
                   "emb_dropout=0.0", """
            num_patches = (image_size // patch_size) ** 2
            self.patch_size = patch_size
            self.pos_embedding = nn.Parameter(torch.randn(1, num_patches + 1, dim))
            self.patch_to_embedding = nn.Linear(channels * patch_size * patch_size, dim)
            self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
            self.dropout = nn.Dropout(emb_dropout)
            layer = nn.TransformerEncoderLayer(d_model=dim, nhead=heads, dim_feedforward=mlp_dim, dropout=dropout,
                                               activation="gelu", batch_first=True, norm_first=True)
            self.transformer = nn.TransformerEncoder(layer, num_layers=depth, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(dim)
            self.mlp_head = nn.Sequential(nn.Linear(dim, mlp_dim), nn.GELU(), nn.Dropout(dropout),
                                          nn.Linear(mlp_dim, num_classes))
        """),
        init_inputs="[image_size, patch_size, num_classes, dim, depth, heads, mlp_dim, channels]")
    swin_consts = dict(batch_size=S(10, 1), image_size=224, patch_size=4, embed_dim=S(96, 24, 24),
                       depths=[2, 2, 6, 2], num_heads=[3, 6, 12, 24], window_size=7, num_classes=1000)
    swin_args = "[image_size, patch_size, embed_dim, depths, num_heads, window_size, num_classes]"
    add("SwinMLP",
        "Swin-MLP (tiny layout): shifted-window token-mixing MLPs per head, patch merging, mean-pooled head.",
        dict(swin_consts), SWIN_FWD, IMG_INPUT,
        init=SWIN_INIT.replace("BLOCK", "SwinMLPBlock").replace("POST_NORM", "False"),
        init_inputs=swin_args, prelude=_code(WINDOWS, SWIN_MLP_BLOCK))
    add("SwinTransformerV2",
        "Swin V2 (tiny layout): shifted windows, scaled cosine attention, continuous position bias.",
        dict(swin_consts), SWIN_FWD, IMG_INPUT,
        init=SWIN_INIT.replace("BLOCK", "SwinV2Block").replace("POST_NORM", "True"),
        init_inputs=swin_args, prelude=_code(WINDOWS, SWIN_V2_BLOCK))
    add("VisionAttention", "nn.MultiheadAttention over the pixels of a feature map, residual and LayerNorm.",
        dict(batch_size=S(4, 1), embed_dim=128, num_heads=4, image_height=S(64, 8), image_width=S(64, 8)),
        _fwd("x", """
            b, c, h, w = x.shape
            tokens = x.view(b, c, h * w).permute(2, 0, 1)  # (sequence, batch, embed)
            attended, _ = self.attn(tokens, tokens, tokens, need_weights=False)
            tokens = self.norm(attended + tokens)
            return tokens.permute(1, 2, 0).reshape(b, c, h, w)
        """),
        "return [torch.randn(batch_size, embed_dim, image_height, image_width)]",
        init=_init("embed_dim, num_heads", """
            self.attn = nn.MultiheadAttention(embed_dim, num_heads)
            self.norm = nn.LayerNorm(embed_dim)
        """),
        init_inputs="[embed_dim, num_heads]")
    add("ConvolutionalVisionTransformer",
        "CvT: three stages of conv token embedding and conv-projection attention, class token in the last stage.",
        dict(batch_size=S(8, 1), image_size=image(), num_classes=1000, embed_dims=[64, 192, 384], depths=[1, 2, 4],
             num_heads=[1, 3, 6]),
        _fwd("x", """
            b = x.shape[0]
            for stage in self.stages[:-1]:
                tokens, h, w = stage(x)
                x = tokens.transpose(1, 2).reshape(b, -1, h, w)
            tokens, _, _ = self.stages[-1](x)
            return self.head(self.norm(tokens[:, 0]))
        """),
        IMG_INPUT,
        init=_init("num_classes, embed_dims, depths, num_heads", """
            geometry = [(7, 4, 2), (3, 2, 1), (3, 2, 1)]  # conv embedding kernel, stride, padding
            stages = []
            in_channels = 3
            for i, (dim, depth, heads) in enumerate(zip(embed_dims, depths, num_heads)):
                k, s, p = geometry[i]
                stages.append(CvTStage(in_channels, dim, depth, heads, k, s, p, i == len(embed_dims) - 1))
                in_channels = dim
            self.stages = nn.ModuleList(stages)
            self.norm = nn.LayerNorm(in_channels)
            self.head = nn.Linear(in_channels, num_classes)
        """),
        init_inputs="[num_classes, embed_dims, depths, num_heads]", prelude=CVT)

    # --- 33-42: recurrent networks ---------------------------------------------------------------
    add("VanillaRNN", "One step of a hand-written RNN cell; the hidden state is a tensor attribute updated in place.",
        dict(batch_size=S(8, 1), input_size=S(1024, 64), hidden_size=S(256, 16), output_size=S(128, 8)),
        _fwd("x", """
            self.hidden = self.hidden.to(x.device)
            combined = torch.cat((x, self.hidden), dim=1)
            self.hidden = self.tanh(self.i2h(combined))
            return self.h2o(self.hidden)
        """),
        "return [torch.randn(batch_size, input_size)]",
        init=_init("input_size, hidden_size, output_size", """
            self.input_size = input_size
            self.hidden_size = hidden_size
            self.output_size = output_size
            self.hidden = torch.randn((batch_size, hidden_size))
            self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.tanh = nn.Tanh()
        """),
        init_inputs="[input_size, hidden_size, output_size]")
    add("VanillaRNNHidden",
        "Hand-written RNN cell unrolled over a sequence; h0 is the second input (get_inputs); returns the last "
        "hidden state.",
        dict(batch_size=S(8, 1), sequence_length=S(64, 8), input_size=S(1024, 64), hidden_size=S(256, 16)),
        _fwd("x, h0", """
            hidden = h0
            for x_t in torch.unbind(x, dim=0):
                hidden = torch.tanh(self.i2h(torch.cat((x_t, hidden), dim=1)))
            return hidden
        """),
        "x = torch.randn(sequence_length, batch_size, input_size)\nh0 = torch.randn(batch_size, hidden_size)\n"
        "return [x, h0]",
        init=_init("input_size, hidden_size", "self.i2h = nn.Linear(input_size + hidden_size, hidden_size)"),
        init_inputs="[input_size, hidden_size]")

    lstm_consts = dict(batch_size=S(10, 1), sequence_length=S(512, 16), input_size=S(128, 16),
                       hidden_size=S(256, 16), num_layers=6, output_size=10)
    lstm_in = "return [torch.randn(batch_size, sequence_length, input_size)]"

    def lstm(name, doc, bidirectional, head, ret):
        dirs = " * 2" if bidirectional else ""
        bidi = ", bidirectional=True" if bidirectional else ""
        init = [f"self.h0 = torch.randn((num_layers{dirs}, batch_size, hidden_size))",
                f"self.c0 = torch.randn((num_layers{dirs}, batch_size, hidden_size))",
                f"self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, dropout=dropout{bidi})"]
        if head:
            init.append(f"self.fc = nn.Linear(hidden_size{dirs}, output_size)")
        forward = ["self.h0 = self.h0.to(x.device)", "self.c0 = self.c0.to(x.device)",
                   "out, state = self.lstm(x, (self.h0, self.c0))  # out: (batch, sequence, directions * hidden)"]
        consts = dict(lstm_consts)
        if not head:
            del consts["output_size"]
        add(name, doc, consts, _fwd("x", "\n".join(forward + ret)), lstm_in,
            init=_init("input_size, hidden_size, num_layers" + (", output_size" if head else "") + ", dropout=0.0",
                       "\n".join(init)),
            init_inputs="[input_size, hidden_size, num_layers" + (", output_size]" if head else "]"))

    lstm("LSTM", "Six-layer LSTM (batch first, h0 / c0 tensor attributes), last step through a linear head.",
         False, True, ["return self.fc(out[:, -1, :])"])
    lstm("LSTMHn", "Six-layer LSTM returning h_n; the linear head on the last step is computed but unused.",
         False, True, ["self.fc(out[:, -1, :])", "return state[0]"])
    lstm("LSTMCn", "Six-layer LSTM returning the final cell states c_n.", False, False, ["return state[1]"])
    lstm("LSTMBidirectional", "Six-layer bidirectional LSTM, last step (both directions) through a linear head.",
         True, True, ["return self.fc(out[:, -1, :])"])

    gru_consts = dict(sequence_length=S(256, 16), batch_size=S(10, 1), input_size=S(128, 16),
                      hidden_size=S(256, 16), num_layers=6)

    def gru(name, doc, bidirectional, ret):
        dirs = " * 2" if bidirectional else ""
        bidi = ", bidirectional=True" if bidirectional else ""
        add(name, doc, dict(gru_consts),
            _fwd("x", "self.h0 = self.h0.to(x.device)\n"
                      "output, h_n = self.gru(x, self.h0)  # output: (sequence, batch, directions * hidden)\n"
                      f"return {ret}"),
            "return [torch.randn(sequence_length, batch_size, input_size)]",
            init=_init("input_size, hidden_size, num_layers=3, bias=True, batch_first=False",
                       f"self.gru = nn.GRU(input_size, hidden_size, num_layers, bias, batch_first, dropout=0.0{bidi})\n"
                       f"self.h0 = torch.randn((num_layers{dirs}, batch_size, hidden_size))"),
            init_inputs="[input_size, hidden_size, num_layers]")

    gru("GRU", "Six-layer GRU (sequence first, h0 a tensor attribute) returning the full output.", False, "output")
    gru("GRUHidden", "Six-layer GRU returning h_n.", False, "h_n")
    gru("GRUBidirectional", "Six-layer bidirectional GRU returning the full output.", True, "output")
    gru("GRUBidirectionalHidden", "Six-layer bidirectional GRU returning h_n.", True, "h_n")

    # --- 43-50: attention, U-Net, NetVLAD, Mamba2 ------------------------------------------------
    gpt_consts = dict(max_seqlen=S(1024, 32), seq_len=S(512, 16), n_embd=S(768, 96, 96), n_head=12,
                      attn_pdrop=0.0, resid_pdrop=0.0)
    gpt_in = "return [torch.randn(batch_size, seq_len, n_embd)]"
    gpt_args = "[n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen]"
    add("MinGPTCausalAttention",
        "Masked multi-head self-attention with a causal tril buffer, softmax, output projection.",
        dict(batch_size=S(32, 1), **gpt_consts),
        CAUSAL_FWD.replace("ACT", "self.attn_dropout(F.softmax(att, dim=-1))"), gpt_in,
        init=CAUSAL_INIT, init_inputs=gpt_args)
    add("MiniGPTBlock", "GPT-2 block: LayerNorm, causal self-attention, LayerNorm, MLP with tanh-GELU, residuals.",
        dict(batch_size=S(16, 1), **gpt_consts),
        _fwd("x", """
            x = x + self.attn(self.ln_1(x))
            m = self.mlp
            return x + m.dropout(m.c_proj(m.act(m.c_fc(self.ln_2(x)))))
        """),
        gpt_in,
        init=_init("n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen", """
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention(n_embd, n_head, attn_pdrop, resid_pdrop, max_seqlen)
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.ModuleDict(dict(
                c_fc=nn.Linear(n_embd, 4 * n_embd), c_proj=nn.Linear(4 * n_embd, n_embd), act=NewGELU(),
                dropout=nn.Dropout(resid_pdrop)))
        """),
        init_inputs=gpt_args, prelude=_code(NEW_GELU, CAUSAL_CLASS))
    add("UNetSoftmax",
        "U-Net: four encoder levels, transposed-conv decoder with skip concatenation, softmax over the last axis.",
        dict(batch_size=S(8, 1), in_channels=8, out_channels=4, height=S(64, 32, 16), width=S(512, 16, 16),
             features=32),
        _fwd("x", """
            skips = []
            for encoder in self.encoders:
                x = encoder(x)
                skips.append(x)
                x = self.pool(x)
            x = self.bottleneck(x)
            for up, decoder, skip in zip(self.ups, self.decoders, reversed(skips)):
                x = decoder(torch.cat([up(x), skip], dim=1))
            return torch.softmax(self.final_conv(x), dim=-1)
        """),
        "return [torch.randn(batch_size, in_channels, height, width)]",
        init=_init("in_channels, out_channels, features", """
            widths = [features, features * 2, features * 4, features * 8]
            self.encoders = nn.ModuleList()
            for w in widths:
                self.encoders.append(DoubleConv(in_channels, w))
                in_channels = w
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.bottleneck = DoubleConv(widths[-1], widths[-1] * 2)
            self.ups = nn.ModuleList([nn.ConvTranspose2d(w * 2, w, kernel_size=2, stride=2) for w in reversed(widths)])
            self.decoders = nn.ModuleList([DoubleConv(w * 2, w) for w in reversed(widths)])
            self.final_conv = nn.Conv2d(features, out_channels, kernel_size=1)
        """),
        init_inputs="[in_channels, out_channels, features]", prelude=UNET)
    for name, ghosts in (("NetVladWithGhostClusters", 16), ("NetVladNoGhostClusters", 0)):
        add(name, "NetVLAD pooling: soft-assignment (BatchNorm1d, softmax) to clusters, residual aggregation, "
            + ("intra- and L2-normalisation; 16 ghost clusters dropped." if ghosts else "intra- and L2-normalisation."),
            dict(batch_size=S(32, 2), num_features=S(256, 16), feature_size=S(512, 32, 32), cluster_size=64,
                 ghost_clusters=ghosts),
            NETVLAD_FWD, "return [torch.randn(batch_size, num_features, feature_size)]",
            init=NETVLAD_INIT, init_inputs="[cluster_size, feature_size, ghost_clusters]")
    mamba_consts = dict(batch_size=S(16, 1), seq_length=S(128, 64, 64), n_heads=8, d_head=64,
                        d_state=16, block_len=64)
    mamba_args = "[batch_size, seq_length, n_heads, d_head, d_state, block_len]"
    mamba_in = "return [torch.randn(batch_size, seq_length, n_heads, d_head)]"
    add("Mamba2ReturnY", "Mamba2 SSD written out: chunked segment sums, einsum contractions; returns Y.",
        dict(mamba_consts), _fwd("X", MAMBA_FWD_Y), mamba_in, init=MAMBA_INIT, init_inputs=mamba_args, prelude=SEGSUM)
    add("Mamba2ReturnFinalState",
        "Mamba2 SSD chunk recurrence; returns the final state (batch, heads, d_head, d_state).",
        dict(mamba_consts), _fwd("X", MAMBA_FWD_STATE), mamba_in, init=MAMBA_INIT, init_inputs=mamba_args,
        prelude=SEGSUM)
    add("ReLUSelfAttention", "Causal self-attention with ReLU in place of softmax (masked scores become 0).",
        dict(batch_size=S(32, 1), **gpt_consts), CAUSAL_FWD.replace("ACT", "F.relu(att)"), gpt_in,
        init=CAUSAL_INIT, init_inputs=gpt_args)

    assert len(out) == 50, len(out)
    return out
