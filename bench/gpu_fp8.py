#!/usr/bin/env python3
"""gpu_int8_bert.py's BERT-style encoder quantized to FP8 E4M3 by NVIDIA Model Optimizer, on Kiln's CUDA backend
beside Kiln FP16 on the unquantized model, in one run (issue 47's GPU benchmark, FP8 BERT row).

The model and inputs are gpu_int8_bert.py's (BERT-base's sizes, 4,096-token vocabulary, 128 tokens, random weights of
seed 0; --layers as there). Two steps:

  make (on the development machine, where Model Optimizer installs): exports the model and quantizes it as
      python -m modelopt.onnx.quantization --quantize_mode=fp8 --high_precision_dtype=fp32 --dq_only
  calibrated on 8 sequences (seed 2): the weights are FP8 initializers behind a DequantizeLinear (about 23 MB at
  2 layers, the FP32 embeddings most of it). With --seeded (BERT-base's 12 layers, whose weights are too many to
  travel to the GPU machine), the export's large weights are drawn from seeds first, the model is quantized without
  --dq_only (its weights FP32 initializers behind a QuantizeLinear), and the drawn arrays are left out of it and of
  the seeded export, which goes beside it (seeded_weights.py).
  time (on the GPU machine): exports the unquantized model again (or restores the seeded export beside a seeded
  model) and times, with
  `kiln --backend=cuda --useCudaGraph --noDataTransfers` on the same token ids (seed 1):
    - FP16:        the unquantized model, --fp16
    - FP8:         the Q/DQ model, --fp8 (its projections fused into cuBLASLt's FP8 products, FP32 between the pairs)
    - FP8 + FP16:  the Q/DQ model, --fp8 --fp16 (trtexec's --best: the same FP8 products, FP16 between the pairs)
  and the FP8 / FP16 ratios. Issue 47's target: FP8 >= 1.4x FP16 at batch 8.

Usage: gpu_fp8.py make --output .gpu-fp8/bert_fp8.onnx --layers 2 [--seeded]   (run by Model Optimizer's Python)
       gpu_fp8.py time --kiln build/tools/kiln/kiln --fp8-model .gpu-fp8/bert_fp8.onnx --layers 2 [--batches 1,8,64]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import cpu_onnxruntime as common
import gpu_int8
import gpu_int8_bert as bert
import resnet50_gpu
import seeded_weights


def make(args):
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    helper = os.path.join(gpu_int8.HERE, "seeded_weights.py")
    with tempfile.TemporaryDirectory(prefix="kiln_bert_fp8_") as scratch:
        fp32, names = bert.export_encoder(scratch, args.layers)
        if args.seeded:
            subprocess.run([sys.executable, helper, "seed", fp32, fp32], check=True)
        calibration = os.path.join(scratch, "calibration.npz")
        samples = bert.token_inputs(bert.CALIBRATION_SAMPLES, bert.CALIBRATION_SEED)
        np.savez(calibration, **dict(zip(names, samples)))
        quantized = os.path.join(scratch, "fp8.onnx") if args.seeded else args.output
        subprocess.run([args.modelopt_python, "-m", "modelopt.onnx.quantization", f"--onnx_path={fp32}",
                        "--quantize_mode=fp8", f"--calibration_data_path={calibration}", "--calibration_eps=cpu",
                        "--high_precision_dtype=fp32", *([] if args.seeded else ["--dq_only"]),
                        f"--output_path={quantized}"], check=True, capture_output=True)
        if args.seeded:
            draws = fp32 + ".draws.json"
            subprocess.run([sys.executable, helper, "strip", quantized, draws, args.output], check=True)
            subprocess.run([sys.executable, helper, "strip", fp32, draws, seeded_weights.export_beside(args.output)],
                           check=True)
    print(f"{args.output}: {os.path.getsize(args.output) / 1e6:.1f} MB")
    return 0


def unquantized_encoder(args, scratch):
    """The unquantized model to time FP16 on, and its input names: the seeded export beside a seeded FP8 model, else
    the encoder exported here."""
    beside = seeded_weights.export_beside(args.fp8_model)
    if not os.path.exists(beside):
        return bert.export_encoder(os.path.join(scratch, "fp32"), args.layers)
    import onnx

    restored = gpu_int8.unpacked(beside, scratch)
    return restored, [i.name for i in onnx.load(restored, load_external_data=False).graph.input]


def time_engines(args):
    batches = [int(b) for b in args.batches.split(",") if b]
    with tempfile.TemporaryDirectory(prefix="kiln_bert_fp8_") as scratch:
        fp8_model = gpu_int8.unpacked(args.fp8_model, scratch)
        fp32, names = unquantized_encoder(args, scratch)
        engines = (("Kiln FP16", fp32, True, []), ("Kiln FP8", fp8_model, False, ["--fp8"]),
                   ("Kiln FP8 + FP16", fp8_model, True, ["--fp8"]))
        print("| engine | batch | median ms | p99 ms | sequences/s |")
        print("|---|---|---|---|---|")
        for batch in batches:
            shapes, loads = common.write_raw_inputs(names, bert.token_inputs(batch, common.INPUT_SEED), scratch)
            name, shape = shapes.split(":", 1)
            figures = {}
            for label, model, fp16, flags in engines:
                figures[label] = resnet50_gpu.kiln_figures(args.kiln, model, name, shape, fp16, args.seconds,
                                                           cuda_graph=True, flags=flags + [f"--loadInputs={loads}"])
                bert.row(label, batch, figures[label])
            for label in ("Kiln FP8", "Kiln FP8 + FP16"):
                fp8, fp16 = figures[label], figures["Kiln FP16"]
                if "error" not in fp8 and "error" not in fp16:
                    print(f"|   {label[5:]} / FP16 | {batch} | | | {fp8['qps'] / fp16['qps']:.2f}x |", flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    making = steps.add_parser("make", help="export and quantize the encoder (development machine)")
    making.add_argument("--modelopt-python", default=sys.executable, help="the Python that has Model Optimizer")
    making.add_argument("--output", required=True, help="where the FP8 model goes")
    making.add_argument("--seeded", action="store_true", help="the model's weights travel as seeds")
    timing = steps.add_parser("time", help="time Kiln FP8 beside Kiln FP16 (GPU machine)")
    for step in (making, timing):
        step.add_argument("--layers", type=int, default=common.BERT_LAYERS, help="encoder layers (the same for both)")
    timing.add_argument("--kiln", required=True, help="path to the kiln executable")
    timing.add_argument("--fp8-model", required=True, help="the model `make` wrote")
    timing.add_argument("--batches", default="1,8,64")
    timing.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    args = parser.parse_args()
    return make(args) if args.step == "make" else time_engines(args)


if __name__ == "__main__":
    sys.exit(main())
