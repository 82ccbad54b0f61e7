#!/usr/bin/env python3
"""Exports the zoo's plugin models: ONNX files that name one of NVIDIA's standard plugins the way real exports do,
with PyTorch's and torchvision's outputs as references (ONNX Runtime cannot run those nodes).

- yolo_end2end: a YOLO-shaped detector whose graph ends in `TRT::EfficientNMS_TRT`, as YOLO's end-to-end exports
  write it (centre-size boxes, sigmoid scores, outputs num_dets, det_boxes, det_scores, det_classes). Reference:
  torchvision's batched_nms per image, the survivors by descending score, padded with zeros.
- dcn_mmdeploy: mmcv's ModulatedDeformConv2dPack (a convolution giving offsets and mask, split and concatenated
  as mmcv does) exported as a `ModulatedDeformConv2d` node with the weight and bias as initializers, as mmdeploy
  writes it for TensorRT. Reference: torchvision's deform_conv2d with the mask.

Each custom node is a torch.autograd.Function whose forward computes the reference and whose symbolic writes the
plugin node, so the exported graph and the expected outputs come from one module. Writes DIR/<name>/model.onnx,
input_<i>.npy, expected_<i>.npy and about.txt, like export_zoo.py. Needs torch, torchvision, onnx and numpy.

Usage: export_plugin_models.py [--out DIR]
"""
import argparse
import os
import warnings

import numpy as np
import torch
import torchvision
from torch import nn

# EfficientNMS_TRT's fields in the exported model (YOLO's end-to-end export uses these values).
SCORE_THRESHOLD = 0.25
IOU_THRESHOLD = 0.45
MAX_OUTPUT_BOXES = 100


def centre_size_to_corners(boxes):
    centre, size = boxes[..., :2], boxes[..., 2:]
    return torch.cat([centre - size / 2, centre + size / 2], -1)


def efficient_nms_reference(boxes, scores):
    """EfficientNMS_TRT's outputs for centre-size boxes [B, N, 4] and scores [B, N, C] (no background class)."""
    batch, _, classes = scores.shape
    count = torch.zeros(batch, 1, dtype=torch.int32)
    kept_boxes = torch.zeros(batch, MAX_OUTPUT_BOXES, 4)
    kept_scores = torch.zeros(batch, MAX_OUTPUT_BOXES)
    kept_classes = torch.zeros(batch, MAX_OUTPUT_BOXES, dtype=torch.int32)
    for b in range(batch):
        corners = centre_size_to_corners(boxes[b])
        box_index, class_index = torch.nonzero(scores[b] >= SCORE_THRESHOLD, as_tuple=True)
        candidate_scores = scores[b, box_index, class_index]
        kept = torchvision.ops.batched_nms(corners[box_index], candidate_scores, class_index, IOU_THRESHOLD)
        kept = kept[:MAX_OUTPUT_BOXES]  # batched_nms returns them by descending score
        n = kept.numel()
        count[b, 0] = n
        kept_boxes[b, :n] = corners[box_index[kept]]
        kept_scores[b, :n] = candidate_scores[kept]
        kept_classes[b, :n] = class_index[kept].int()
    return count, kept_boxes, kept_scores, kept_classes


class EfficientNms(torch.autograd.Function):
    @staticmethod
    def forward(ctx, boxes, scores):
        return efficient_nms_reference(boxes, scores)

    @staticmethod
    def symbolic(g, boxes, scores):
        return g.op("TRT::EfficientNMS_TRT", boxes, scores, background_class_i=-1, box_coding_i=1,
                    iou_threshold_f=IOU_THRESHOLD, max_output_boxes_i=MAX_OUTPUT_BOXES, plugin_version_s="1",
                    score_activation_i=0, score_threshold_f=SCORE_THRESHOLD, outputs=4)


class ConvBnSiLU(nn.Sequential):
    def __init__(self, inputs, outputs, stride=1):
        super().__init__(nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False), nn.BatchNorm2d(outputs), nn.SiLU())


class YoloEnd2End(nn.Module):
    """A strided backbone, one detection head per cell (YOLOv8's decoded boxes and sigmoid class scores), and the
    end-to-end NMS."""

    def __init__(self, classes=3, stride=8):
        super().__init__()
        self.stride = stride
        self.backbone = nn.Sequential(ConvBnSiLU(3, 8, 2), ConvBnSiLU(8, 16, 2), ConvBnSiLU(16, 16, 2))
        self.head = nn.Conv2d(16, 4 + classes, 1)
        for layer in self.backbone.modules():  # spread the scores over (0, 1): thresholds and classes matter
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight)
        nn.init.normal_(self.head.weight, std=3.0)

    def forward(self, image):
        features = self.head(self.backbone(image))
        batch, channels, rows, columns = features.shape
        cells = features.flatten(2).transpose(1, 2)  # [B, rows * columns, 4 + classes]
        ys, xs = torch.meshgrid(torch.arange(rows), torch.arange(columns), indexing="ij")
        grid = torch.stack([xs, ys], -1).reshape(1, rows * columns, 2).float()
        centre = (grid + 0.5 + cells[..., :2].tanh()) * self.stride
        size = (1 + cells[..., 2:4].sigmoid()) * 2 * self.stride  # 2 to 4 cells wide: neighbours overlap
        boxes = torch.cat([centre, size], -1)
        scores = cells[..., 4:].sigmoid()
        return EfficientNms.apply(boxes, scores)


class ModulatedDeformConv(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, offset, mask, weight, bias, padding, deform_groups):
        return torchvision.ops.deform_conv2d(x, offset, weight, bias, padding=padding, mask=mask)

    @staticmethod
    def symbolic(g, x, offset, mask, weight, bias, padding, deform_groups):
        return g.op("ModulatedDeformConv2d", x, offset, mask, weight, bias, stride_i=[1, 1],
                    padding_i=[padding, padding], dilation_i=[1, 1], group_i=1, deformable_group_i=deform_groups)


class ModulatedDeformConv2dPack(nn.Module):
    """mmcv's DCNv2 layer: its own convolution predicts (dy, dx) pairs and a mask per deformable group and tap."""

    def __init__(self, inputs, outputs, deform_groups):
        super().__init__()
        self.deform_groups = deform_groups
        self.weight = nn.Parameter(torch.randn(outputs, inputs, 3, 3) / (3 * inputs ** 0.5))
        self.bias = nn.Parameter(torch.randn(outputs) * 0.1)
        self.conv_offset = nn.Conv2d(inputs, deform_groups * 3 * 9, 3, 1, 1)
        nn.init.normal_(self.conv_offset.weight, std=0.8)  # offsets of a pixel or two: samples cross the border

    def forward(self, x):
        first, second, mask = torch.chunk(self.conv_offset(x), 3, dim=1)
        offset = torch.cat((first, second), dim=1)
        return ModulatedDeformConv.apply(x, offset, mask.sigmoid(), self.weight, self.bias, 1, self.deform_groups)


class DeformableBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 1, 1)
        self.dcn = ModulatedDeformConv2dPack(8, 12, deform_groups=2)
        self.out = nn.Conv2d(12, 4, 1)

    def forward(self, image):
        return self.out(torch.relu(self.dcn(torch.relu(self.stem(image)))))


MODELS = {
    # name: (module, input shapes, input names, output names)
    "yolo_end2end": (YoloEnd2End, [(2, 3, 64, 64)], ["images"], ["num_dets", "det_boxes", "det_scores", "det_classes"]),
    "dcn_mmdeploy": (DeformableBlock, [(2, 3, 12, 12)], ["input"], ["output"]),
}


def export(name, directory):
    make, shapes, input_names, output_names = MODELS[name]
    torch.manual_seed(0)
    module = make().eval()
    inputs = [torch.rand(shape) for shape in shapes]
    os.makedirs(directory, exist_ok=True)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        outputs = module(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        torch.onnx.export(module, tuple(inputs), os.path.join(directory, "model.onnx"), input_names=input_names,
                          output_names=output_names, opset_version=17, dynamo=False)
    for i, tensor in enumerate(inputs):
        np.save(os.path.join(directory, f"input_{i}.npy"), tensor.numpy())
    for i, tensor in enumerate(outputs):
        np.save(os.path.join(directory, f"expected_{i}.npy"), tensor.numpy())
    with open(os.path.join(directory, "about.txt"), "w") as about:
        parameters = sum(p.numel() for p in module.parameters())
        about.write(f"{name} (own, plugin model), random weights (seed 0), {parameters} parameters\n"
                    f"exported by tests/models/export_plugin_models.py with torch {torch.__version__} and "
                    f"torchvision {torchvision.__version__} (TorchScript exporter, opset 17)\n"
                    f"inputs: {', '.join(f'{n} {list(s)}' for n, s in zip(input_names, shapes))}\n"
                    f"outputs (PyTorch/torchvision eager, expected_<i>.npy): "
                    f"{', '.join(f'{n} {list(t.shape)}' for n, t in zip(output_names, outputs))}\n")
    return outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    for name in MODELS:
        outputs = export(name, os.path.join(args.out, name))
        print(f"{name}: " + ", ".join(str(list(t.shape)) for t in outputs), flush=True)


if __name__ == "__main__":
    main()
