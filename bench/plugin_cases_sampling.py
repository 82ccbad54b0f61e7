"""Bilinear-sampling cases: ROIAlign_TRT beside torchvision's roi_align, ModulatedDeformConv2d beside torchvision's
deform_conv2d with a mask, MultiscaleDeformableAttnPlugin_TRT beside grid_sample composing Deformable DETR's
attention."""
import numpy as np

from plugin_case import Case, Instance, float_type, plugin_model, to_device
from plugin_checks import dense, max_diff_text


def roi_align(rng, fp16, images, channels, height, width, count):
    """The map is an FPN P2 level (stride 4); ROIs are in image pixels."""
    dtype = float_type(fp16)
    scale = 0.25
    corner = rng.uniform(0, 1, (count, 2)) * [width / scale, height / scale]
    size = rng.uniform(8, 0.5 * min(width, height) / scale, (count, 2))
    inputs = {"X": rng.standard_normal((images, channels, height, width)).astype(dtype),
              "rois": np.concatenate([corner, corner + size], axis=1).astype(dtype),
              "batch_indices": np.sort(rng.integers(0, images, count)).astype(np.int32)}
    fields = {"coordinate_transformation_mode": 1, "mode": 1, "output_height": 7, "output_width": 7,
              "sampling_ratio": 0, "spatial_scale": scale}

    def align(t, dtype=None):
        import torch
        import torchvision

        x, rois = (t["X"], t["rois"]) if dtype is None else (t["X"].to(dtype), t["rois"].to(dtype))
        boxes = torch.cat([t["batch_indices"][:, None].to(rois.dtype), rois], dim=1)
        return lambda: torchvision.ops.roi_align(x, boxes, (7, 7), spatial_scale=scale, sampling_ratio=0,
                                                 aligned=True)

    def peer(device):
        t = to_device(inputs, device)
        call = align(t)
        if not fp16:
            return call
        # The reference for the check: the same FP16 inputs, computed in FP32 (outside the timing).
        import torch

        reference = align(t, torch.float32)()

        def with_reference():
            return call(), reference

        return with_reference

    def check(kiln, peer_result):
        if not fp16:
            return max_diff_text(kiln["Y"], peer_result)
        # torchvision's FP16 kernel accumulates in half, up to hundreds of samples per bin here: both are compared
        # with FP32 roi_align on the same half inputs.
        peer_half, reference = peer_result
        return (f"vs FP32 ref: {max_diff_text(kiln['Y'], reference)}; peer half "
                f"{max_diff_text(peer_half, reference).split(' (')[0]}")

    return Instance(plugin_model("ROIAlign_TRT", "2", inputs, ["Y"], fields), inputs,
                    f"{images}x{channels}x{height}x{width}, {count} ROIs 7x7", peer, check)


def deform_conv(rng, fp16, batch, channels, outputs, height, width):
    """A 3x3 kernel, padding 1; offsets of a few pixels, masks in [0, 1]."""
    dtype = float_type(fp16)
    taps = 9
    inputs = {"x": rng.standard_normal((batch, channels, height, width)).astype(dtype),
              "offset": rng.normal(0, 2, (batch, 2 * taps, height, width)).astype(dtype),
              "mask": rng.uniform(0, 1, (batch, taps, height, width)).astype(dtype)}
    constants = {"weight": (rng.standard_normal((outputs, channels, 3, 3)) / np.sqrt(9 * channels)).astype(dtype),
                 "bias": rng.standard_normal(outputs).astype(dtype)}
    fields = {"stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "group": 1, "deformable_group": 1}

    def peer(device):
        import torchvision

        t = to_device({**inputs, **constants}, device)
        return lambda: torchvision.ops.deform_conv2d(t["x"], t["offset"], t["weight"], t["bias"], padding=1,
                                                     mask=t["mask"])

    model = plugin_model("ModulatedDeformConv2d", "2", inputs, ["y"], fields, constants,
                         order=["x", "offset", "mask", "weight", "bias"])
    return Instance(model, inputs, f"{batch}x{channels}x{height}x{width} -> {outputs}, 3x3", peer, dense("y"))


def deformable_attention(value, shapes, locations, weights):
    """Deformable DETR's multi-scale deformable attention from its definition: each level's map sampled with
    grid_sample (bilinear, zeros outside, align_corners=False) at 2 * location - 1, weighted and summed over levels
    and points. value [N, S, M, D], locations [N, Q, M, L, P, 2], weights [N, Q, M, L, P] -> [N, Q, M, D]."""
    import torch
    import torch.nn.functional as F

    batch, _, heads, channels = value.shape
    _, queries, _, levels, points, _ = locations.shape
    maps = value.split([h * w for h, w in shapes], dim=1)
    grids = 2 * locations - 1
    sampled = []
    for level, (h, w) in enumerate(shapes):
        level_map = maps[level].permute(0, 2, 3, 1).reshape(batch * heads, channels, h, w)
        grid = grids[:, :, :, level].transpose(1, 2).reshape(batch * heads, queries, points, 2)
        sampled.append(F.grid_sample(level_map, grid, mode="bilinear", padding_mode="zeros", align_corners=False))
    stacked = torch.stack(sampled, dim=3).flatten(3)  # [N * M, D, Q, L * P]
    attention = weights.transpose(1, 2).reshape(batch * heads, 1, queries, levels * points)
    out = (stacked * attention).sum(-1).view(batch, heads, channels, queries)
    return out.permute(0, 3, 1, 2)


def ms_deform_attn(rng, fp16, batch, shapes, heads, channels, points):
    """The queries are the encoder's: one per pixel of all levels."""
    dtype = float_type(fp16)
    levels = len(shapes)
    pixels = [h * w for h, w in shapes]
    queries = sum(pixels)
    logits = rng.standard_normal((batch, queries, heads, levels * points))
    weights = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    inputs = {"value": rng.standard_normal((batch, queries, heads, channels)).astype(dtype),
              # Some locations a little outside [0, 1], where the zero padding counts.
              "sampling_locations": rng.uniform(-0.05, 1.05, (batch, queries, heads, levels, points, 2)).astype(dtype),
              "attention_weights": weights.reshape(batch, queries, heads, levels, points).astype(dtype)}
    constants = {"spatial_shapes": np.asarray(shapes, dtype=np.int32),
                 "level_start_index": np.cumsum([0] + pixels[:-1]).astype(np.int32)}
    order = ["value", "spatial_shapes", "level_start_index", "sampling_locations", "attention_weights"]

    def peer(device):
        t = to_device(inputs, device)
        return lambda: deformable_attention(t["value"], shapes, t["sampling_locations"], t["attention_weights"])

    model = plugin_model("MultiscaleDeformableAttnPlugin_TRT", "2", inputs, ["out"], {}, constants, order)
    shape = f"{batch}x{queries}x{heads}x{channels}, {levels} levels x {points}"
    return Instance(model, inputs, shape, peer, dense("out"))


# Deformable DETR's four levels for an 800x1333 image (strides 8 to 64).
DETR_LEVELS = [(100, 167), (50, 84), (25, 42), (13, 21)]

CASES = [
    # (images, channels, height, width, ROIs): an FPN P2 map of an 800x1088 image.
    Case("ROIAlign_fpn", "ROIAlign_TRT", "torchvision roi_align", True, roi_align,
         (2, 256, 200, 272, 1000), (2, 4, 12, 16, 10)),
    # (batch, in channels, out channels, height, width)
    Case("ModulatedDeformConv2d", "ModulatedDeformConv2d", "torchvision deform_conv2d", True, deform_conv,
         (4, 64, 64, 56, 56), (1, 4, 6, 7, 8)),
    # (batch, level shapes, heads, channels per head, points)
    Case("MultiscaleDeformableAttn", "MultiscaleDeformableAttnPlugin_TRT", "grid_sample composite", True,
         ms_deform_attn, (1, DETR_LEVELS, 8, 32, 4), (1, [(6, 8), (3, 4)], 2, 4, 2)),
]
