#!/usr/bin/env python3
"""ResNet-50 quantized to INT8 by NVIDIA Model Optimizer, on Kiln's CUDA backend beside Kiln FP16 and PyTorch FP16, in
one run (issue 47's GPU benchmark, ResNet-50 row).

The models: the Q/DQ export that bench/cpu_int8.py makes (torchvision's resnet50, weights=None, seed 0, quantized by
`python -m modelopt.onnx.quantization --quantize_mode=int8 --high_precision_dtype=fp32`), given with its weight
quantizations computed into INT8 initializers by bench/int8_initializers.py (the same model in a quarter of the bytes,
so that it travels to the GPU machine); and torchvision's resnet50 exported here (weights=None) for the FP16 rows.
Each row: `kiln --backend=cuda --useCudaGraph --noDataTransfers` (resnet50_gpu.py's kiln_figures) with
  - FP16:         the FP32 export, --fp16
  - INT8:         the Q/DQ export, --int8 (the convolutions between Q/DQ pairs run on INT8, the rest FP32)
  - INT8 + FP16:  the Q/DQ export, --int8 --fp16 (trtexec's --best)
and PyTorch eager FP16 (channels_last, replayed from a CUDA graph). Issue 47's targets: INT8 at batch 256 >= 1.8x
Kiln FP16 of the same run, and batch-1 latency below FP16's; rows that miss are marked, a time never fails the run.
Before timing, `kiln --compare=cpu` prints how far the INT8 plan's logits at batch 1 are from the CPU reference
kernels' (for the record: a sum within FP32 rounding of an INT8 step's boundary may take the neighbouring step, and
such steps compound over ResNet-50's quantized layers).

Usage: gpu_int8.py --kiln build/tools/kiln/kiln --int8-model resnet50_int8.onnx [--batches 1,8,256] [--seconds 2]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import resnet50_gpu as common

SPEEDUP_TARGET = 1.8  # issue 47: ResNet-50 INT8 at batch 256 at least 1.8x Kiln FP16


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--int8-model", required=True, help="Model Optimizer's INT8 Q/DQ export of ResNet-50")
    parser.add_argument("--batches", default="1,8,256")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    return parser.parse_args()


def input_name(path):
    import onnx

    return onnx.load(path, load_external_data=False).graph.input[0].name


def compare_with_reference(kiln, model, name):
    """kiln --compare=cpu on the INT8 plan at batch 1: its summary of the differences."""
    args = [kiln, f"--onnx={model}", "--backend=cuda", "--int8", f"--shapes={name}:1x3x224x224", "--compare=cpu",
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
    int8_name = input_name(args.int8_model)
    print("INT8 plan against the CPU reference kernels (batch 1):", compare_with_reference(args.kiln, args.int8_model, int8_name))
    with tempfile.TemporaryDirectory() as scratch:
        fp32_model = os.path.join(scratch, "resnet50.onnx")
        common.export_resnet50(fp32_model)
        print("| engine | batch | median ms | p99 ms | images/s |")
        print("|---|---|---|---|---|")
        for batch in batches:
            shape = f"{batch}x3x224x224"
            fp16 = common.kiln_figures(args.kiln, fp32_model, "input", shape, True, args.seconds, cuda_graph=True)
            row("Kiln FP16", batch, fp16)
            int8 = common.kiln_figures(args.kiln, args.int8_model, int8_name, shape, False, args.seconds,
                                       cuda_graph=True, flags=["--int8"])
            row("Kiln INT8", batch, int8)
            best = common.kiln_figures(args.kiln, args.int8_model, int8_name, shape, True, args.seconds,
                                       cuda_graph=True, flags=["--int8"])
            row("Kiln INT8 + FP16", batch, best)
            torch = common.pytorch_figures(batch, True, args.seconds, False)
            row("PyTorch eager FP16 + CUDA graph", batch, torch["eager + CUDA graph"])
            if "error" not in fp16 and "error" not in int8:
                speedup = int8["qps"] / fp16["qps"]
                mark = "" if batch != 256 or speedup >= SPEEDUP_TARGET else f" (target {SPEEDUP_TARGET}x missed)"
                latency = "" if batch != 1 or int8["median"] < fp16["median"] else " (batch-1 latency above FP16's)"
                print(f"|   INT8 / FP16 | {batch} | | | {speedup:.2f}x{mark}{latency} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
