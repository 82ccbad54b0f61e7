"""Normalization cases beside PyTorch: GroupNormalizationPlugin (F.group_norm) and InstanceNormalization_TRT
(F.instance_norm). Both are memory-bound: the rows give their bandwidth (reading x once and writing y once)."""
import numpy as np

from plugin_case import Case, Instance, float_type, plugin_model, to_device
from plugin_checks import dense


def group_norm(rng, fp16, shape, groups):
    """FP32 only, as NVIDIA's plugin; scale and bias are the plugin's inputs (initializers here)."""
    inputs = {"X": rng.normal(0.5, 2.0, shape).astype(np.float32)}
    constants = {"scale": rng.uniform(0.5, 1.5, shape[1]).astype(np.float32),
                 "bias": rng.normal(0, 0.5, shape[1]).astype(np.float32)}
    fields = {"eps": 1e-5, "num_groups": groups}

    def peer(device):
        import torch.nn.functional as F

        t = to_device({**inputs, **constants}, device)
        return lambda: F.group_norm(t["X"], groups, t["scale"], t["bias"], 1e-5)

    model = plugin_model("GroupNormalizationPlugin", "1", inputs, ["Y"], fields, constants)
    return Instance(model, inputs, f"{'x'.join(map(str, shape))}, {groups} groups", peer, dense("Y"),
                    bytes_moved=2 * inputs["X"].nbytes)


def instance_norm(rng, fp16, *shape):
    """scales and bias are the plugin's fields."""
    inputs = {"x": rng.normal(0.5, 2.0, shape).astype(float_type(fp16))}
    weights = {"scales": rng.uniform(0.5, 1.5, shape[1]).astype(np.float32),
               "bias": rng.normal(0, 0.5, shape[1]).astype(np.float32)}
    fields = {"epsilon": 1e-5, "relu": 0, "alpha": 0.0, **weights}

    def peer(device):
        import torch.nn.functional as F

        t = to_device(inputs, device)
        w = to_device({k: v.astype(inputs["x"].dtype) for k, v in weights.items()}, device)
        return lambda: F.instance_norm(t["x"], weight=w["scales"], bias=w["bias"], eps=1e-5)

    model = plugin_model("InstanceNormalization_TRT", "1", inputs, ["y"], fields)
    return Instance(model, inputs, "x".join(map(str, shape)), peer, dense("y"), bytes_moved=2 * inputs["x"].nbytes)


CASES = [
    # A Stable Diffusion VAE block: 512 channels at 64x64, 32 groups.
    Case("GroupNormalization", "GroupNormalizationPlugin", "F.group_norm", False, group_norm,
         ((2, 512, 64, 64), 32), ((2, 8, 5, 6), 4)),
    # Style transfer: 4 images, 128 channels at 128x128.
    Case("InstanceNormalization", "InstanceNormalization_TRT", "F.instance_norm", True, instance_norm,
         (4, 128, 128, 128), (2, 3, 5, 7)),
]
