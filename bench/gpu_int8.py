#!/usr/bin/env python3
"""Models quantized to INT8 by NVIDIA Model Optimizer, on Kiln's CUDA backend beside Kiln FP16 and PyTorch FP16, in
one run (issue 47's GPU benchmark: the ResNet-50, ConvNeXt-T and YOLO-style rows).

The models (MODELS, --model): torchvision's resnet50 and convnext_tiny at 224x224, and the zoo's YOLO-style detector
(tests/models/yolo_style.py, its real size: width 64, 80 classes, 640x640), random weights of seed 0, exported with
the TorchScript exporter at opset 17 with a dynamic batch. The INT8 model is that export quantized by
`python -m modelopt.onnx.quantization --quantize_mode=int8 --high_precision_dtype=fp32` (calibrated on 8 images of
seed 2) with its weight quantizations computed into INT8 initializers by bench/int8_initializers.py (the same model in
a quarter of the bytes, so that it travels to the GPU machine): gpu_int8_make.py writes it, run by Model Optimizer's
Python. ResNet-50's may also be the one bench/cpu_int8.py makes. The FP32 export for the FP16 rows is made here.
Each row: `kiln --backend=cuda --useCudaGraph --noDataTransfers` (resnet50_gpu.py's kiln_figures) with
  - FP16:         the FP32 export, --fp16
  - INT8:         the Q/DQ export, --int8 (the layers between Q/DQ pairs run on INT8 where fused, the rest FP32)
  - INT8 + FP16:  the Q/DQ export, --int8 --fp16 (trtexec's --best)
and PyTorch eager FP16 (channels_last, replayed from a CUDA graph) on the same torch module; with --compile also
torch.compile(mode="max-autotune") (minutes of autotuning per batch size). Issue 47's targets: ResNet-50 INT8 at batch
256 >= 1.8x Kiln FP16 of the same run, and batch-1 latency below FP16's; rows that miss are marked, a time never fails
the run. Before timing, `kiln --compare=cpu` prints how far the INT8 plan's outputs at batch 1 are from the CPU
reference kernels' (for the record: a sum within FP32 rounding of an INT8 step's boundary may take the neighbouring
step, and such steps compound over the quantized layers).

Usage: gpu_int8.py --kiln build/tools/kiln/kiln [--model resnet50|convnext_tiny|yolo_style]
                   [--int8-model .gpu-int8/MODEL_int8.onnx] [--batches 1,8,256] [--seconds 2] [--compile]
"""
import argparse
import dataclasses
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Callable

import resnet50_gpu as common

HERE = os.path.dirname(os.path.abspath(__file__))
SPEEDUP_TARGET = 1.8  # issue 47: ResNet-50 INT8 at batch 256 at least 1.8x Kiln FP16
WEIGHT_SEED = 0
INPUT_NAME = "input"


@dataclasses.dataclass(frozen=True)
class Model:
    image_size: int
    make: Callable  # make() -> the torch module, random weights (seeded by module())


def torchvision_model(name):
    def make():
        import torchvision

        return getattr(torchvision.models, name)(weights=None)

    return make


def zoo_model(name):
    """The zoo's real-size module (tests/models/zoo_models.py), as export_zoo.py --real builds it."""
    def make():
        zoo = os.path.join(HERE, "..", "tests", "models")
        if zoo not in sys.path:
            sys.path.insert(0, zoo)
        import zoo_models

        return next(model for model in zoo_models.MODELS if model.name == name).make(False).module

    return make


MODELS = {"resnet50": Model(224, torchvision_model("resnet50")),
          "convnext_tiny": Model(224, torchvision_model("convnext_tiny")),
          "yolo_style": Model(640, zoo_model("yolo_style"))}


def default_int8_model(name):
    """Where gpu_int8_make.py writes MODELS[name]'s INT8 model by default: .gpu-int8/ of the repository (ignored)."""
    return os.path.join(HERE, "..", ".gpu-int8", f"{name}_int8.onnx")


def module(name):
    """MODELS[name]'s module in eval mode, its weights from seed 0."""
    import torch

    torch.manual_seed(WEIGHT_SEED)
    return MODELS[name].make().eval()


def export(name, path):
    """MODELS[name]'s FP32 ONNX export: one image input with a dynamic batch."""
    import torch

    size = MODELS[name].image_size
    common.export_onnx(module(name), torch.rand(1, 3, size, size), path, [INPUT_NAME], ["output"],
                       {INPUT_NAME: {0: "batch"}, "output": {0: "batch"}})


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--model", choices=sorted(MODELS), default="resnet50")
    parser.add_argument("--int8-model", help="Model Optimizer's INT8 Q/DQ export of the model, gpu_int8_make.py's "
                        "(default .gpu-int8/MODEL_int8.onnx of the repository; .onnx.gz: gzip-compressed)")
    parser.add_argument("--batches", default="1,8,256")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    parser.add_argument("--compile", action="store_true", help="time torch.compile max-autotune too (slow)")
    args = parser.parse_args()
    args.int8_model = args.int8_model or default_int8_model(args.model)
    return args


def unpacked(path, scratch):
    """`path`, or where its content went in `scratch` when it is gzip-compressed (.gz: a model over the GPU machine's
    transfer limit, as gpu_int8_make.py writes it when asked)."""
    if not path.endswith(".gz"):
        return path
    unpacked_path = os.path.join(scratch, os.path.basename(path)[:-len(".gz")])
    with gzip.open(path, "rb") as packed, open(unpacked_path, "wb") as plain:
        shutil.copyfileobj(packed, plain)
    return unpacked_path


def input_name(path):
    import onnx

    return onnx.load(path, load_external_data=False).graph.input[0].name


def compare_with_reference(kiln, model, name, size):
    """kiln --compare=cpu on the INT8 plan at batch 1: its summary of the differences."""
    args = [kiln, f"--onnx={model}", "--backend=cuda", "--int8", f"--shapes={name}:1x3x{size}x{size}", "--compare=cpu",
            "--atol=0.05", "--rtol=0.05", "--iterations=1", "--duration=0"]
    run = subprocess.run(args, capture_output=True, text=True)
    lines = [line for line in (run.stdout + run.stderr).splitlines() if "ompar" in line or "[E]" in line]
    return f"exit {run.returncode}: " + " | ".join(lines[-3:])


def row(label, batch, figures):
    if "error" in figures:
        print(f"| {label} | {batch} | error: {figures['error']} | | |", flush=True)
        return
    images = batch * figures["qps"]
    print(f"| {label} | {batch} | {figures['median']:.3f} | {figures['p99']:.3f} | {images:,.0f} |", flush=True)


def main():
    args = parse_args()
    batches = [int(b) for b in args.batches.split(",") if b]
    size = MODELS[args.model].image_size
    with tempfile.TemporaryDirectory() as scratch:
        int8_model = unpacked(args.int8_model, scratch)
        int8_name = input_name(int8_model)
        print(f"{args.model}: INT8 plan against the CPU reference kernels (batch 1):",
              compare_with_reference(args.kiln, int8_model, int8_name, size), flush=True)
        fp32_model = os.path.join(scratch, f"{args.model}.onnx")
        export(args.model, fp32_model)
        print("| engine | batch | median ms | p99 ms | images/s |")
        print("|---|---|---|---|---|")
        for batch in batches:
            shape = f"{batch}x3x{size}x{size}"
            fp16 = common.kiln_figures(args.kiln, fp32_model, INPUT_NAME, shape, True, args.seconds, cuda_graph=True)
            row("Kiln FP16", batch, fp16)
            int8 = common.kiln_figures(args.kiln, int8_model, int8_name, shape, False, args.seconds,
                                       cuda_graph=True, flags=["--int8"])
            row("Kiln INT8", batch, int8)
            best = common.kiln_figures(args.kiln, int8_model, int8_name, shape, True, args.seconds,
                                       cuda_graph=True, flags=["--int8"])
            row("Kiln INT8 + FP16", batch, best)
            torch = common.pytorch_figures(batch, True, args.seconds, args.compile, lambda: module(args.model), size)
            row("PyTorch eager FP16 + CUDA graph", batch, torch["eager + CUDA graph"])
            if args.compile:
                row("torch.compile max-autotune FP16", batch, torch["torch.compile max-autotune"])
            if "error" not in fp16 and "error" not in int8:
                speedup = int8["qps"] / fp16["qps"]
                missed = args.model == "resnet50" and batch == 256 and speedup < SPEEDUP_TARGET
                mark = f" (target {SPEEDUP_TARGET}x missed)" if missed else ""
                latency = "" if batch != 1 or int8["median"] < fp16["median"] else " (batch-1 latency above FP16's)"
                print(f"|   INT8 / FP16 | {batch} | | | {speedup:.2f}x{mark}{latency} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
