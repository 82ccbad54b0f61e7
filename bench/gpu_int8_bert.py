#!/usr/bin/env python3
"""A BERT-style encoder quantized to INT8 by NVIDIA Model Optimizer, on Kiln's CUDA backend beside Kiln FP16 on the
unquantized model, in one run (issue 47's GPU benchmark, BERT row; gpu_int8.py has ResNet-50's).

The model: transformers' BertModel at BERT-base's sizes with 4 layers (cpu_onnxruntime.py's encoder) but a vocabulary
of 4,096 tokens, so that its INT8 export travels to the GPU machine (the embeddings stay FP32: BERT-base's 30,522 rows
alone are 94 MB; the gather of 128 rows costs the same from either table). Random weights (seed 0), 128 tokens with
the last quarter padded, exported by the zoo's exporter (opset 17, dynamic batch). Two steps:

  make (on the development machine, where Model Optimizer installs): exports the model, quantizes it as
      python -m modelopt.onnx.quantization --quantize_mode=int8 --high_precision_dtype=fp32 --calibration_eps=cpu
  calibrated on 8 sequences (seed 2), and computes its weight quantizations into INT8 initializers
  (int8_initializers.py): about 40 MB.
  time (on the GPU machine): exports the unquantized model again (the same seed) and times, with
  `kiln --backend=cuda --useCudaGraph --noDataTransfers` on the same token ids (seed 1):
    - FP16:         the unquantized model, --fp16
    - INT8:         the Q/DQ model, --int8 (its 24 projections fused on INT8 through cuBLASLt, the layers between
                    the pairs FP32)
    - INT8 + FP16:  the Q/DQ model, --int8 --fp16 (trtexec's --best: the same INT8 products, FP16 between the
                    pairs)
  Issue 47's BERT target is for FP8 (>= 1.4x FP16 at batch 8); the INT8 / FP16 line says where INT8 stands.

With --layers 2 (given to both steps) the INT8 model is about 29 MB, small enough to travel to the GPU machine beside
the working tree; at 4 layers (41 MB) it does not.

Usage: gpu_int8_bert.py make --modelopt-python /work/venvs/modelopt/bin/python --output bert_int8.onnx
       gpu_int8_bert.py time --kiln build/tools/kiln/kiln --int8-model bert_int8.onnx [--batches 1,8,64] [--seconds 2]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import cpu_onnxruntime as common
import resnet50_gpu

VOCABULARY = 4096
CALIBRATION_SEED = 2
CALIBRATION_SAMPLES = 8


def export_encoder(directory, layers):
    """The unquantized encoder of `layers` layers: its .onnx file and its input names (input_ids, attention_mask)."""
    import zoo_models

    def make_encoder(small):
        from transformers import BertConfig, BertModel

        config = BertConfig(num_hidden_layers=layers, vocab_size=VOCABULARY)
        return zoo_models._text_model(BertModel(config), 1, common.SEQUENCE_LENGTH, VOCABULARY)

    model = zoo_models.ZooModel("bert_base_%d_layers" % layers, "transformers", make_encoder)
    return common.exported_model(model, directory)


def token_inputs(batch, seed):
    import torch

    import zoo_models

    torch.manual_seed(seed)
    return [tensor.numpy() for tensor in zoo_models._text_inputs(batch, common.SEQUENCE_LENGTH, VOCABULARY)]


def make(args):
    with tempfile.TemporaryDirectory(prefix="kiln_bert_int8_") as scratch:
        fp32, names = export_encoder(scratch, args.layers)
        calibration = os.path.join(scratch, "calibration.npz")
        np.savez(calibration, **dict(zip(names, token_inputs(CALIBRATION_SAMPLES, CALIBRATION_SEED))))
        qdq = os.path.join(scratch, "qdq.onnx")
        subprocess.run([args.modelopt_python, "-m", "modelopt.onnx.quantization", f"--onnx_path={fp32}",
                        "--quantize_mode=int8", f"--calibration_data_path={calibration}", "--calibration_eps=cpu",
                        "--high_precision_dtype=fp32", f"--output_path={qdq}"], check=True, capture_output=True)
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "int8_initializers.py"), qdq, args.output], check=True)
    return 0


def time_engines(args):
    batches = [int(b) for b in args.batches.split(",") if b]
    with tempfile.TemporaryDirectory(prefix="kiln_bert_int8_") as scratch:
        fp32, names = export_encoder(os.path.join(scratch, "fp32"), args.layers)
        print("| engine | batch | median ms | p99 ms | sequences/s |")
        print("|---|---|---|---|---|")
        for batch in batches:
            shapes, loads = common.write_raw_inputs(names, token_inputs(batch, common.INPUT_SEED), scratch)
            # kiln_figures passes --shapes={name}:{shape}: the first input's name, then the rest of the list.
            name, shape = shapes.split(":", 1)
            figures = {}
            for label, model, fp16, flags in (("Kiln FP16", fp32, True, []),
                                              ("Kiln INT8", args.int8_model, False, ["--int8"]),
                                              ("Kiln INT8 + FP16", args.int8_model, True, ["--int8"])):
                figures[label] = resnet50_gpu.kiln_figures(args.kiln, model, name, shape, fp16, args.seconds,
                                                           cuda_graph=True, flags=flags + [f"--loadInputs={loads}"])
                row(label, batch, figures[label])
            int8, fp16 = figures["Kiln INT8"], figures["Kiln FP16"]
            if "error" not in int8 and "error" not in fp16:
                print(f"|   INT8 / FP16 | {batch} | | | {int8['qps'] / fp16['qps']:.2f}x |", flush=True)
    return 0


def row(label, batch, figures):
    if "error" in figures:
        print(f"| {label} | {batch} | error: {figures['error']} | | |", flush=True)
        return
    print(f"| {label} | {batch} | {figures['median']:.3f} | {figures['p99']:.3f} | {batch * figures['qps']:,.0f} |",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    making = steps.add_parser("make", help="export and quantize the encoder (development machine)")
    making.add_argument("--modelopt-python", default=sys.executable, help="the Python that has Model Optimizer")
    making.add_argument("--output", required=True, help="where the INT8 model goes")
    timing = steps.add_parser("time", help="time Kiln INT8 beside Kiln FP16 (GPU machine)")
    for step in (making, timing):
        step.add_argument("--layers", type=int, default=common.BERT_LAYERS,
                          help="encoder layers (the same for both steps; 2 makes a model of about 29 MB, which "
                               "travels to the GPU machine beside the tree)")
    timing.add_argument("--kiln", required=True, help="path to the kiln executable")
    timing.add_argument("--int8-model", required=True, help="the model `make` wrote")
    timing.add_argument("--batches", default="1,8,64")
    timing.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    args = parser.parse_args()
    return make(args) if args.step == "make" else time_engines(args)


if __name__ == "__main__":
    sys.exit(main())
