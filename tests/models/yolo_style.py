"""A YOLOv8-shaped detector written for the zoo (no detection library needed): the layer patterns such exports
contain, at any width."""
import torch
from torch import nn


class ConvBnSiLU(nn.Sequential):
    def __init__(self, inputs, outputs, kernel=3, stride=1):
        super().__init__(nn.Conv2d(inputs, outputs, kernel, stride, kernel // 2, bias=False),
                         nn.BatchNorm2d(outputs), nn.SiLU())


class Bottleneck(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.first = ConvBnSiLU(channels, channels)
        self.second = ConvBnSiLU(channels, channels)

    def forward(self, x):
        return x + self.second(self.first(x))


class SplitConcat(nn.Module):
    """YOLOv8's C2f: split the maps in two, chain bottlenecks on one half, concatenate every stage's maps."""

    def __init__(self, inputs, outputs, blocks=1):
        super().__init__()
        self.half = outputs // 2
        self.expand = ConvBnSiLU(inputs, 2 * self.half, 1)
        self.blocks = nn.ModuleList(Bottleneck(self.half) for _ in range(blocks))
        self.merge = ConvBnSiLU((2 + blocks) * self.half, outputs, 1)

    def forward(self, x):
        parts = list(self.expand(x).split((self.half, self.half), 1))
        for block in self.blocks:
            parts.append(block(parts[-1]))
        return self.merge(torch.cat(parts, 1))


class SpatialPyramidPool(nn.Module):
    """SPPF: three chained 5x5 max pools, concatenated."""

    def __init__(self, channels):
        super().__init__()
        self.reduce = ConvBnSiLU(channels, channels // 2, 1)
        self.pool = nn.MaxPool2d(5, 1, 2)
        self.merge = ConvBnSiLU(channels * 2, channels, 1)

    def forward(self, x):
        x = self.reduce(x)
        first = self.pool(x)
        second = self.pool(first)
        return self.merge(torch.cat((x, first, second, self.pool(second)), 1))


class DecodedHead(nn.Module):
    """Anchor-free head on three strides: box sides as expectations over 16 bins (a softmax), offsets from each
    cell's centre, scaled by the stride; class scores through a sigmoid. Output [batch, 4 + classes, cells]."""

    bins = 16

    def __init__(self, channels, classes, strides):
        super().__init__()
        self.strides = strides
        self.boxes = nn.ModuleList(nn.Sequential(ConvBnSiLU(c, c), nn.Conv2d(c, 4 * self.bins, 1)) for c in channels)
        self.scores = nn.ModuleList(nn.Sequential(ConvBnSiLU(c, c), nn.Conv2d(c, classes, 1)) for c in channels)
        self.register_buffer("bin_values", torch.arange(self.bins, dtype=torch.float32))

    def forward(self, features):
        decoded = []
        for feature, boxes, scores, stride in zip(features, self.boxes, self.scores, self.strides):
            batch, _, height, width = feature.shape
            sides = boxes(feature).view(batch, 4, self.bins, height * width).softmax(2)
            sides = (sides * self.bin_values.view(1, 1, -1, 1)).sum(2)  # [batch, 4, cells]
            ys, xs = torch.meshgrid(torch.arange(height, dtype=torch.float32, device=feature.device),
                                    torch.arange(width, dtype=torch.float32, device=feature.device), indexing="ij")
            centres = torch.stack((xs.flatten(), ys.flatten())) + 0.5  # [2, cells]
            top_left = centres - sides[:, :2]
            bottom_right = centres + sides[:, 2:]
            box = torch.cat(((top_left + bottom_right) / 2, bottom_right - top_left), 1) * stride
            decoded.append(torch.cat((box, scores(feature).flatten(2).sigmoid()), 1))
        return torch.cat(decoded, 2)


class YoloStyle(nn.Module):
    def __init__(self, width=64, classes=80):
        super().__init__()
        w = width
        self.stem = nn.Sequential(ConvBnSiLU(3, w // 2, 3, 2), ConvBnSiLU(w // 2, w, 3, 2), SplitConcat(w, w))
        self.stage3 = nn.Sequential(ConvBnSiLU(w, 2 * w, 3, 2), SplitConcat(2 * w, 2 * w, 2))
        self.stage4 = nn.Sequential(ConvBnSiLU(2 * w, 4 * w, 3, 2), SplitConcat(4 * w, 4 * w, 2))
        self.stage5 = nn.Sequential(ConvBnSiLU(4 * w, 4 * w, 3, 2), SplitConcat(4 * w, 4 * w), SpatialPyramidPool(4 * w))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.top_down4 = SplitConcat(8 * w, 4 * w)
        self.top_down3 = SplitConcat(6 * w, 2 * w)
        self.down3 = ConvBnSiLU(2 * w, 2 * w, 3, 2)
        self.bottom_up4 = SplitConcat(6 * w, 4 * w)
        self.down4 = ConvBnSiLU(4 * w, 4 * w, 3, 2)
        self.bottom_up5 = SplitConcat(8 * w, 4 * w)
        self.head = DecodedHead((2 * w, 4 * w, 4 * w), classes, (8, 16, 32))

    def forward(self, image):
        p3 = self.stage3(self.stem(image))
        p4 = self.stage4(p3)
        p5 = self.stage5(p4)
        t4 = self.top_down4(torch.cat((self.up(p5), p4), 1))
        t3 = self.top_down3(torch.cat((self.up(t4), p3), 1))
        b4 = self.bottom_up4(torch.cat((self.down3(t3), t4), 1))
        b5 = self.bottom_up5(torch.cat((self.down4(b4), p5), 1))
        return self.head((t3, b4, b5))
