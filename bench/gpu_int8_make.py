#!/usr/bin/env python3
"""Makes gpu_int8.py's quantized model of one of its MODELS (on the development machine, where Model Optimizer
installs): exports the model as gpu_int8.py does, quantizes it as
    python -m modelopt.onnx.quantization --quantize_mode=int8|fp8 --high_precision_dtype=fp32 --calibration_eps=cpu
calibrated on 8 random images (torch.rand, seed 2), and prints the file's size and its QuantizeLinear /
DequantizeLinear counts. So that the model travels to the GPU machine, either its weight quantizations are computed
into INT8 initializers (int8_initializers.py; INT8 only), or, for the models whose weights travel as seeds
(gpu_int8.Model.seeded: ViT-B/16), the export's large weights are drawn from seeds before quantizing and left out of
the quantized model (seeded_weights.py: ViT-B/16's FP8 model takes 1.7 MB), and the seeded export, stripped likewise,
goes beside it (MODEL_PRECISION.seeded_fp32.onnx) for gpu_int8.py's FP16 rows. An output name ending in .gz writes it
gzip-compressed (gpu_int8.py reads it so): ConvNeXt-T's INT8 model is 31.5 MB, 28.5 MB so, under the 30 MB that a file
may take of the GPU machine's transfer limit beside the tree.

Usage: gpu_int8_make.py --model convnext_tiny [--precision int8|fp8] [--output .gpu-int8/convnext_tiny_int8.onnx]
Runs in Model Optimizer's Python (torch, torchvision, onnx, numpy and modelopt), e.g. /work/venvs/modelopt/bin/python;
--modelopt-python names another one to run Model Optimizer with.
"""
import argparse
import collections
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import gpu_int8
import seeded_weights

CALIBRATION_SEED = 2
CALIBRATION_SAMPLES = 8


def calibration_images(size):
    import torch

    torch.manual_seed(CALIBRATION_SEED)
    return torch.rand(CALIBRATION_SAMPLES, 3, size, size).numpy()


def quantize(args, fp32, scratch):
    """Model Optimizer's Q/DQ model of `fp32` in args.precision (it writes files beside the model it reads: fp32 is in
    scratch)."""
    calibration = os.path.join(scratch, "calibration.npz")
    np.savez(calibration, **{gpu_int8.INPUT_NAME: calibration_images(gpu_int8.MODELS[args.model].image_size)})
    qdq = os.path.join(scratch, "qdq.onnx")
    run = subprocess.run([args.modelopt_python, "-m", "modelopt.onnx.quantization", f"--onnx_path={fp32}",
                          f"--quantize_mode={args.precision}", f"--calibration_data_path={calibration}",
                          "--calibration_eps=cpu",
                          "--high_precision_dtype=fp32", f"--output_path={qdq}"], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"Model Optimizer failed (exit {run.returncode}):\n{run.stderr[-4000:]}")
    return qdq


def describe(path):
    import onnx

    counts = collections.Counter(node.op_type for node in onnx.load(path, load_external_data=False).graph.node)
    return (f"quantized model: {os.path.getsize(path) / 1e6:.1f} MB, {counts['QuantizeLinear']} QuantizeLinear, "
            f"{counts['DequantizeLinear']} DequantizeLinear")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(gpu_int8.MODELS), required=True)
    parser.add_argument("--precision", choices=sorted(gpu_int8.PRECISIONS), default="int8")
    parser.add_argument("--output", help="where the model goes (default .gpu-int8/MODEL_PRECISION.onnx of the "
                        "repository; a name ending in .gz: gzip-compressed, for a model over the GPU machine's 30 MB "
                        "transfer limit)")
    parser.add_argument("--modelopt-python", default=sys.executable, help="the Python that has Model Optimizer")
    args = parser.parse_args()
    seeded = gpu_int8.MODELS[args.model].seeded
    if args.precision != "int8" and not seeded:
        sys.exit(f"{args.model}: only INT8 models whose weights do not travel as seeds are made (INT8 initializers)")
    output = args.output or gpu_int8.default_int8_model(args.model, args.precision)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    helper = os.path.join(gpu_int8.HERE, "seeded_weights.py" if seeded else "int8_initializers.py")
    with tempfile.TemporaryDirectory(prefix=f"kiln_{args.model}_{args.precision}_") as scratch:
        fp32 = os.path.join(scratch, f"{args.model}.onnx")
        gpu_int8.export(args.model, fp32)
        if seeded:
            subprocess.run([sys.executable, helper, "seed", fp32, fp32], check=True)
        qdq = quantize(args, fp32, scratch)
        travelling = os.path.join(scratch, "travelling.onnx")
        steps = ["strip", qdq, fp32 + ".draws.json", travelling] if seeded else [qdq, travelling]
        subprocess.run([sys.executable, helper, *steps], check=True)
        if seeded:
            fp32_output = seeded_weights.export_beside(output)
            subprocess.run([sys.executable, helper, "strip", fp32, fp32 + ".draws.json", fp32_output], check=True)
        print(describe(travelling))
        if output.endswith(".gz"):
            with open(travelling, "rb") as plain, gzip.open(output, "wb", compresslevel=1) as packed:
                shutil.copyfileobj(plain, packed)
        else:
            shutil.copyfile(travelling, output)
    print(f"{output}: {os.path.getsize(output) / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
