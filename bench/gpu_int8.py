#!/usr/bin/env python3
"""Models quantized to INT8 or FP8 by NVIDIA Model Optimizer, on Kiln's CUDA backend beside Kiln FP16 and PyTorch
FP16, in one run (issue 47's GPU benchmark: the ResNet-50, ConvNeXt-T, ViT-B/16 and YOLO-style rows).

The models (MODELS, --model): torchvision's resnet50, convnext_tiny and vit_b_16 at 224x224, and the zoo's YOLO-style
detector (tests/models/yolo_style.py, its real size: width 64, 80 classes, 640x640), random weights of seed 0, exported
with the TorchScript exporter at opset 17 with a dynamic batch. The quantized model is that export quantized by
`python -m modelopt.onnx.quantization --quantize_mode=int8|fp8 --high_precision_dtype=fp32` (calibrated on 8 images
of seed 2); gpu_int8_make.py writes it, run by Model Optimizer's Python, so that it travels to the GPU machine: with
its weight quantizations computed into INT8 initializers by bench/int8_initializers.py (the same model in a quarter of
the bytes), or, for the models whose weights travel as seeds (ViT-B/16), with its large weights drawn from seeds
before quantization and left out of the file, drawn again here (bench/seeded_weights.py). ResNet-50's may also be the
one bench/cpu_int8.py makes. The FP32 export for the FP16 rows is made here, or, for those models, is the seeded export
gpu_int8_make.py quantized (seeded_weights.export_beside), so that both rows run one graph whichever version of
torch exported it. Each row: `kiln --backend=cuda --useCudaGraph --noDataTransfers` (resnet50_gpu.py's
kiln_figures) with
  - FP16:           the FP32 export, --fp16
  - INT8 (FP8):     the Q/DQ export, --int8 (--fp8) (the layers between Q/DQ pairs run quantized where fused, the
                    rest FP32)
  - INT8 + FP16:    the Q/DQ export, --int8 --fp16 (trtexec's --best; FP8 + FP16 likewise)
and PyTorch eager FP16 (channels_last, replayed from a CUDA graph) on the same torch module; with --compile also
torch.compile(mode="max-autotune") (minutes of autotuning per batch size; torch's weights for the seeded models).
Issue 47's targets (SPEEDUP_TARGETS): ResNet-50 INT8 at batch 256 >= 1.8x Kiln FP16 of the same run, ViT-B/16 FP8 at
batch 8 >= 1.4x, and batch-1 latency below FP16's; rows that miss are marked, a time never fails the run. Before
timing, `kiln --compare=cpu` prints how far the quantized plan's outputs at batch 1 are from the CPU
reference kernels' (for the record: a sum within FP32 rounding of an INT8 step's boundary may take the neighbouring
step, and such steps compound over the quantized layers).

Usage: gpu_int8.py --kiln build/tools/kiln/kiln [--model resnet50|convnext_tiny|vit_b_16|yolo_style]
                   [--precision int8|fp8] [--int8-model .gpu-int8/MODEL_PRECISION.onnx] [--batches 1,8,256]
                   [--seconds 2] [--compile]
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
import seeded_weights

HERE = os.path.dirname(os.path.abspath(__file__))
# Issue 47's targets, as (model, precision, batch): the least quantized / FP16 throughput of the same run.
SPEEDUP_TARGETS = {("resnet50", "int8", 256): 1.8, ("vit_b_16", "fp8", 8): 1.4}
WEIGHT_SEED = 0
INPUT_NAME = "input"


@dataclasses.dataclass(frozen=True)
class Model:
    image_size: int
    make: Callable  # make() -> the torch module, random weights (seeded by module())
    seeded: bool = False  # its quantized model's large weights travel as seeds (seeded_weights.py)


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
          "vit_b_16": Model(224, torchvision_model("vit_b_16"), seeded=True),
          "yolo_style": Model(640, zoo_model("yolo_style"))}


PRECISIONS = {"int8": ("INT8", "--int8"), "fp8": ("FP8", "--fp8")}  # label, kiln's flag


def default_int8_model(name, precision="int8"):
    """Where gpu_int8_make.py writes MODELS[name]'s quantized model by default: .gpu-int8/ of the repository
    (ignored)."""
    return os.path.join(HERE, "..", ".gpu-int8", f"{name}_{precision}.onnx")


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
    parser.add_argument("--precision", choices=sorted(PRECISIONS), default="int8")
    parser.add_argument("--int8-model", help="Model Optimizer's Q/DQ export of the model, gpu_int8_make.py's "
                        "(default .gpu-int8/MODEL_PRECISION.onnx of the repository; .onnx.gz: gzip-compressed)")
    parser.add_argument("--batches", default="1,8,256")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    parser.add_argument("--compile", action="store_true", help="time torch.compile max-autotune too (slow)")
    args = parser.parse_args()
    args.int8_model = args.int8_model or default_int8_model(args.model, args.precision)
    return args


def unpacked(path, scratch):
    """`path`, or where its content went in `scratch` when it is gzip-compressed (.gz: a model over the GPU machine's
    transfer limit, as gpu_int8_make.py writes it when asked) or its weights travel as seeds."""
    import onnx

    if path.endswith(".gz"):
        unpacked_path = os.path.join(scratch, os.path.basename(path)[:-len(".gz")])
        with gzip.open(path, "rb") as packed, open(unpacked_path, "wb") as plain:
            shutil.copyfileobj(packed, plain)
        path = unpacked_path
    model = onnx.load(path)
    if seeded_weights.restore(model) == 0:
        return path
    restored = os.path.join(scratch, "restored_" + os.path.basename(path))
    onnx.save(model, restored)
    return restored


def input_name(path):
    import onnx

    return onnx.load(path, load_external_data=False).graph.input[0].name


def compare_with_reference(kiln, model, name, size, flag):
    """kiln --compare=cpu on the quantized plan at batch 1: its summary of the differences."""
    args = [kiln, f"--onnx={model}", "--backend=cuda", flag, f"--shapes={name}:1x3x{size}x{size}", "--compare=cpu",
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
    label, flag = PRECISIONS[args.precision]
    with tempfile.TemporaryDirectory() as scratch:
        quantized_model = unpacked(args.int8_model, scratch)
        quantized_name = input_name(quantized_model)
        print(f"{args.model}: {label} plan against the CPU reference kernels (batch 1):",
              compare_with_reference(args.kiln, quantized_model, quantized_name, size, flag), flush=True)
        if MODELS[args.model].seeded:
            fp32_model = unpacked(seeded_weights.export_beside(args.int8_model), scratch)
        else:
            fp32_model = os.path.join(scratch, f"{args.model}.onnx")
            export(args.model, fp32_model)
        print("| engine | batch | median ms | p99 ms | images/s |")
        print("|---|---|---|---|---|")
        for batch in batches:
            shape = f"{batch}x3x{size}x{size}"
            fp16 = common.kiln_figures(args.kiln, fp32_model, INPUT_NAME, shape, True, args.seconds, cuda_graph=True)
            row("Kiln FP16", batch, fp16)
            quantized = common.kiln_figures(args.kiln, quantized_model, quantized_name, shape, False, args.seconds,
                                            cuda_graph=True, flags=[flag])
            row(f"Kiln {label}", batch, quantized)
            best = common.kiln_figures(args.kiln, quantized_model, quantized_name, shape, True, args.seconds,
                                       cuda_graph=True, flags=[flag])
            row(f"Kiln {label} + FP16", batch, best)
            torch = common.pytorch_figures(batch, True, args.seconds, args.compile, lambda: module(args.model), size)
            row("PyTorch eager FP16 + CUDA graph", batch, torch["eager + CUDA graph"])
            if args.compile:
                row("torch.compile max-autotune FP16", batch, torch["torch.compile max-autotune"])
            if "error" not in fp16 and "error" not in quantized:
                speedup = quantized["qps"] / fp16["qps"]
                target = SPEEDUP_TARGETS.get((args.model, args.precision, batch))
                mark = f" (target {target}x missed)" if target and speedup < target else ""
                slower = batch == 1 and quantized["median"] >= fp16["median"]
                latency = " (batch-1 latency above FP16's)" if slower else ""
                print(f"|   {label} / FP16 | {batch} | | | {speedup:.2f}x{mark}{latency} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
