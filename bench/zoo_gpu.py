#!/usr/bin/env python3
"""The model zoo at its real sizes on the GPU: Kiln's CUDA backend against ONNX Runtime (accuracy) and beside
PyTorch eager (time), one row per model, printed as soon as it is measured (issue 14's table).

For each model of tests/models/zoo_models.py: export it at its real size (random weights, seed 0) with ONNX Runtime's
outputs (tests/models/export_zoo.py), run it once with onnx_run_model --backend=cuda and compare (max|diff| /
max|ref|), then time it with `kiln --backend=cuda --noDataTransfers` (GPU Compute Time, median) and PyTorch eager on
the same inputs with CUDA events. FP32 with TF32 off on both sides. The ratio is PyTorch's time over Kiln's: above 1,
Kiln is faster.

Usage: zoo_gpu.py --kiln build/tools/kiln/kiln --runner build/tests/onnx/onnx_run_model [--only a,b] [--seconds 2]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
sys.path.insert(0, HERE)
import export_zoo  # noqa: E402
import zoo_models  # noqa: E402
from resnet50_gpu import time_callable  # noqa: E402


def scaled_error(directory):
    worst = 0.0
    for i in range(len([f for f in os.listdir(directory) if f.startswith("expected_")])):
        expected = np.load(os.path.join(directory, f"expected_{i}.npy")).astype(np.float64)
        actual = np.load(os.path.join(directory, f"output_{i}.npy")).astype(np.float64)
        if actual.shape != expected.shape:
            return float("inf")
        worst = max(worst, np.abs(actual - expected).max() / max(np.abs(expected).max(), 1e-30))
    return worst


def first_error(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else "no message")[:160]


def kiln_accuracy(runner, directory):
    run = subprocess.run([runner, os.path.join(directory, "model.onnx"), directory, "--backend=cuda"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return None, first_error(run.stderr)
    return scaled_error(directory), ""


def kiln_median_ms(kiln, directory, spec, seconds):
    """kiln's GPU Compute Time median on the export's inputs (loaded, so that token ids stay in the vocabulary)."""
    shapes, loads = [], []
    for i, (name, tensor) in enumerate(zip(spec.input_names, spec.inputs)):
        raw = os.path.join(directory, f"input_{i}.bin")
        tensor.numpy().tofile(raw)
        shapes.append(f"{name}:{'x'.join(str(d) for d in tensor.shape)}")
        loads.append(f"{name}:{raw}")
    run = subprocess.run([kiln, f"--onnx={os.path.join(directory, 'model.onnx')}", "--backend=cuda",
                          f"--shapes={','.join(shapes)}", f"--loadInputs={','.join(loads)}", "--noDataTransfers",
                          f"--duration={seconds}", "--warmUp=500"], capture_output=True, text=True)
    compute = re.search(r"GPU Compute Time: .*median = ([\d.]+) ms", run.stdout + run.stderr)
    return float(compute.group(1)) if run.returncode == 0 and compute else None


def pytorch_median_ms(spec, seconds):
    import torch

    module = spec.module.cuda()
    inputs = [tensor.cuda() for tensor in spec.inputs]
    with torch.inference_mode():
        figures = time_callable(lambda: module(*inputs), seconds)
    module.cpu()
    torch.cuda.empty_cache()
    return figures["median"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--runner", required=True, help="build/tests/onnx/onnx_run_model")
    parser.add_argument("--only", default="")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    wanted = set(filter(None, args.only.split(",")))
    print(f"GPU: {torch.cuda.get_device_name(0)}; PyTorch {torch.__version__}")
    print(f"{'model':<22} {'error vs ORT':>12} {'Kiln ms':>9} {'PyTorch ms':>10} {'ratio':>6}  note", flush=True)
    with tempfile.TemporaryDirectory() as root:
        for model in zoo_models.MODELS:
            if wanted and model.name not in wanted:
                continue
            directory = os.path.join(root, model.name)
            try:
                path, inputs, spec = export_zoo.export(model, False, directory)
                export_zoo.reference(path, inputs, directory)
            except Exception as error:  # an export failure is a row, not the end of the table
                print(f"{model.name:<22} export failed: {type(error).__name__}: {str(error)[:120]}", flush=True)
                continue
            error, why = kiln_accuracy(args.runner, directory)
            if error is None:
                print(f"{model.name:<22} {'fails':>12} {'':>9} {'':>10} {'':>6}  {why}", flush=True)
                continue
            kiln_ms = kiln_median_ms(args.kiln, directory, spec, args.seconds)
            torch_ms = pytorch_median_ms(spec, args.seconds)
            ratio = f"{torch_ms / kiln_ms:6.2f}" if kiln_ms else "     -"
            kiln_text = f"{kiln_ms:9.3f}" if kiln_ms else "   failed"
            print(f"{model.name:<22} {error:12.2e} {kiln_text} {torch_ms:10.3f} {ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
