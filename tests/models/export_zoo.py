#!/usr/bin/env python3
"""Exports the zoo's models (zoo_models.py) to ONNX with ONNX Runtime's outputs as references.

For each model it writes DIR/<name>/model.onnx, input_<i>.npy (random, seeded) and expected_<i>.npy (ONNX Runtime's
CPU provider on those inputs), and DIR/<name>/about.txt saying what made them. CTest runs the small configurations
committed in tests/models/ (zoo_test.cpp); bench/zoo_gpu.py exports the real sizes on the GPU machine.

Usage: export_zoo.py [--real] [--out DIR] [--only name,name]
Needs torch, torchvision, timm, transformers, onnx, onnxruntime and numpy.
"""
import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_models  # noqa: E402

SMALL_LIMIT_BYTES = 1 << 20  # what CI carries per model


def export(model, small, directory):
    import torch

    torch.manual_seed(0)
    spec = model.make(small)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "model.onnx")
    # Under no_grad nn.MultiheadAttention (torchvision's ViT) takes its fused fast path, which has no ONNX export: the
    # export runs its Python path, as a user's export outside no_grad does, and PyTorch's own runs keep the fast path.
    fast_path = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(spec.module, spec.inputs, path, input_names=spec.input_names,
                              output_names=spec.output_names, dynamic_axes=spec.dynamic_axes, opset_version=17,
                              dynamo=False)
    finally:
        torch.backends.mha.set_fastpath_enabled(fast_path)
    inputs = [tensor.numpy() for tensor in spec.inputs]
    for i, array in enumerate(inputs):
        np.save(os.path.join(directory, f"input_{i}.npy"), array)
    return path, inputs, spec


def reference(path, inputs, directory):
    import onnxruntime

    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    feeds = {arg.name: array for arg, array in zip(session.get_inputs(), inputs)}
    outputs = session.run(None, feeds)
    for i, array in enumerate(outputs):
        np.save(os.path.join(directory, f"expected_{i}.npy"), array)
    return outputs


def describe(model, small, spec, outputs, directory):
    import torch

    shapes = ", ".join(f"{name} {list(t.shape)}" for name, t in zip(spec.input_names, spec.inputs))
    results = ", ".join(f"{name} {list(a.shape)}" for name, a in zip(spec.output_names, outputs))
    parameters = sum(p.numel() for p in spec.module.parameters())
    with open(os.path.join(directory, "about.txt"), "w") as about:
        about.write(f"{model.name} ({model.source}), {'small' if small else 'real'} configuration, random weights "
                    f"(seed 0), {parameters} parameters\n"
                    f"exported by tests/models/export_zoo.py with torch {torch.__version__} (TorchScript exporter, "
                    f"opset 17)\ninputs: {shapes}\noutputs (ONNX Runtime, expected_<i>.npy): {results}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", action="store_true", help="the real sizes (default: the small configurations)")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--only", default="", help="comma-separated model names")
    args = parser.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    failed = []
    for model in zoo_models.MODELS:
        if wanted and model.name not in wanted:
            continue
        directory = os.path.join(args.out, model.name)
        try:
            path, inputs, spec = export(model, not args.real, directory)
            outputs = reference(path, inputs, directory)
            describe(model, not args.real, spec, outputs, directory)
        except Exception as error:  # one model's failure must not hide the others'
            print(f"{model.name}: FAILED: {type(error).__name__}: {error}", flush=True)
            failed.append(model.name)
            continue
        size = os.path.getsize(path)
        print(f"{model.name}: {size / 1024:.0f} KiB", flush=True)
        if not args.real and size > SMALL_LIMIT_BYTES:
            print(f"{model.name}: FAILED: {size} bytes, over the small configurations' limit", flush=True)
            failed.append(model.name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
