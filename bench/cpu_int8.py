#!/usr/bin/env python3
"""ResNet-50 and a BERT-style encoder quantized to INT8 by NVIDIA Model Optimizer, on Kiln's CPU backend beside
Kiln's FP32 run of the original model and ONNX Runtime's run of the same Q/DQ model, in one run (issue 47's CPU
benchmark).

The models: torchvision's resnet50 (weights=None, torch.manual_seed(0)) and cpu_onnxruntime.py's BERT-style encoder
(transformers' BertModel, BERT-base's sizes with 4 layers, 128 tokens), exported as cpu_onnxruntime.py exports them
(TorchScript exporter, opset 17, dynamic batch), then quantized as a user deploying to TensorRT would:
    python -m modelopt.onnx.quantization --onnx_path=resnet50.onnx --quantize_mode=int8 --high_precision_dtype=fp32
        --calibration_data_path=calibration.npz --calibration_eps=cpu --output_path=resnet50_int8.onnx
calibrated on 8 samples of the zoo's samplers (seed 2; the timed inputs are seed 1). The layers between the Q/DQ
pairs stay FP32, so that Kiln's FP32 run and its INT8 run differ only by quantization.

For each model and batch size, three medians (2 threads by default): Kiln INT8 (`kiln --backend=cpu
--cpuKernels=fast --int8` on the Q/DQ model: its convolutions and its products by weights run fused on oneDNN's INT8
kernels, plan/passes/quantized_fusion.h and quantized_matrix_multiply_fusion.h), Kiln FP32
(the original model) and ONNX Runtime on the Q/DQ model (default graph optimizations, which fuse the Q/DQ pairs into
its own INT8 operators). Issue 47's targets: Kiln INT8 >= 1.5x Kiln FP32, and within 1.5x of ONNX Runtime; rows that
miss one are marked, a time never fails the run. diff/ref compares Kiln INT8's logits with ONNX Runtime's of the
same Q/DQ model (max|diff| / max|ref|): both round the quantized sums their own way, so a few INT8 steps differ and
the logits move by about 1e-2; 5e-2 or more is marked as outputs that differ.

Usage: cpu_int8.py --kiln build/tools/kiln/kiln --modelopt-python /work/venvs/modelopt/bin/python
                   [--models resnet50,bert] [--threads 2] [--batches 1,8] [--seconds 10] [--cache DIR]
Runs in a Python with torch, torchvision, transformers (for bert), onnx, onnxruntime and numpy; Model Optimizer may
live in another environment (--modelopt-python; by default this Python). Exit status: 0; 1 when a step failed or the
outputs differ; 2 for a bad command line.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

import cpu_onnxruntime as common

SPEEDUP_TARGET = 1.5  # issue 47: Kiln INT8 at least 1.5x Kiln FP32
ORT_TARGET = 1.5  # issue 47: Kiln INT8 within 1.5x of ONNX Runtime's Q/DQ run
ERROR_LIMIT = 5e-2
CALIBRATION_SEED = 2
CALIBRATION_SAMPLES = 8
MODELS = {"resnet50": common.torchvision_model("resnet50"),
          "bert": next(model for model in common.MODELS if model.name == "bert")}


def calibration_arrays(model, names):
    """The calibration inputs of `model` by input name: CALIBRATION_SAMPLES of the zoo's sampler, seed 2."""
    import torch
    import zoo_models

    torch.manual_seed(CALIBRATION_SEED)
    if model.name == "bert":
        arrays = zoo_models._text_inputs(CALIBRATION_SAMPLES, common.SEQUENCE_LENGTH, common.bert_config().vocab_size)
    else:
        arrays = [zoo_models._image(CALIBRATION_SAMPLES, common.IMAGE_SIZE)]
    return {name: array.numpy() for name, array in zip(names, arrays)}


def quantized_model(model, path, names, cache, modelopt_python):
    """The Q/DQ model Model Optimizer makes of `path`, from the cache when an earlier run left it there."""
    directory = os.path.join(cache, model.name + "_int8")
    output = os.path.join(directory, "model.onnx")
    if os.path.exists(output):
        return output
    os.makedirs(directory, exist_ok=True)
    calibration = os.path.join(directory, "calibration.npz")
    np.savez(calibration, **calibration_arrays(model, names))
    # Model Optimizer writes files beside the model it reads: it reads a copy.
    source = os.path.join(directory, "source.onnx")
    with open(path, "rb") as original, open(source, "wb") as copy:
        copy.write(original.read())
    command = [modelopt_python, "-m", "modelopt.onnx.quantization", f"--onnx_path={source}", "--quantize_mode=int8",
               f"--calibration_data_path={calibration}", "--calibration_eps=cpu", "--high_precision_dtype=fp32",
               f"--output_path={output}"]
    subprocess.run(command, check=True, capture_output=True)
    return output


def kiln_int8_measure(args, path, names, arrays, scratch):
    """kiln_measure with --int8 (accepted by every kiln that reads Q/DQ models)."""
    original = common.kiln_cpu_flags
    common.kiln_cpu_flags = lambda threads, kernels: original(threads, kernels) + ["--int8"]
    try:
        return common.kiln_measure(args.kiln, path, names, arrays, args.thread_count, "fast", args.seconds, scratch)
    finally:
        common.kiln_cpu_flags = original


HEADER = (f"{'model':<8} {'batch':>5} {'threads':>7} {'Kiln INT8':>10} {'Kiln FP32':>10} {'ORT INT8':>9} "
          f"{'FP32/INT8':>9} {'INT8/ORT':>8} {'diff/ref':>8} {'load':>5}  note")


def measure_batch(args, model, paths, names, batch, scratch):
    arrays = common.batch_inputs(model, batch)
    ort_ms, reference = common.ort_measure(paths["int8"], names, arrays, args.thread_count, args.seconds)
    int8_ms, outputs = kiln_int8_measure(args, paths["int8"], names, arrays, scratch)
    fp32_ms, fp32_outputs = common.kiln_measure(args.kiln, paths["fp32"], names, arrays, args.thread_count, "fast",
                                                args.seconds, scratch)
    if int8_ms is None or fp32_ms is None:
        why = outputs if int8_ms is None else fp32_outputs
        print(f"{model.name:<8} {batch:>5} {args.thread_count:>7} kiln failed: {why}", flush=True)
        return False
    error = common.scaled_difference(reference, outputs)
    notes = []
    if fp32_ms / int8_ms < SPEEDUP_TARGET:
        notes.append(f"UNDER {SPEEDUP_TARGET:g}x FP32")
    if int8_ms / ort_ms > ORT_TARGET:
        notes.append(f"OVER {ORT_TARGET:g}x ORT")
    if not error <= ERROR_LIMIT:
        notes.append("OUTPUTS DIFFER")
    print(f"{model.name:<8} {batch:>5} {args.thread_count:>7} {int8_ms:10.2f} {fp32_ms:10.2f} {ort_ms:9.2f} "
          f"{fp32_ms / int8_ms:8.2f}x {int8_ms / ort_ms:7.2f}x {error:8.1e} {os.getloadavg()[0]:5.2f}  "
          f"{'; '.join(notes)}", flush=True)
    return error <= ERROR_LIMIT


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--modelopt-python", default=sys.executable,
                        help="the Python that has Model Optimizer (default: this one)")
    parser.add_argument("--models", default="resnet50,bert",
                        help=f"comma-separated, of {','.join(MODELS)} (default resnet50,bert)")
    parser.add_argument("--threads", dest="thread_count", type=int, default=2, help="thread count (default 2)")
    parser.add_argument("--batches", type=common.integer_list, default=[1, 8], help="batch sizes (default 1,8)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="timed seconds per measurement, each engine (default 10; at least 5 runs whatever it is)")
    parser.add_argument("--cache", help="keep the exports in this folder and reuse those found there")
    args = parser.parse_args()
    if not (os.path.isfile(args.kiln) and os.access(args.kiln, os.X_OK)):
        parser.error(f"--kiln: {args.kiln} is not an executable file")
    if args.thread_count < 1 or not args.batches or min(args.batches) < 1:
        parser.error("--threads and --batches take positive integers")
    args.models = args.models.split(",")
    unknown = [name for name in args.models if name not in MODELS]
    if unknown:
        parser.error(f"--models: unknown {', '.join(unknown)}; known: {', '.join(MODELS)}")
    return args


def main():
    args = parse_args()
    import onnxruntime
    import torch

    print(common.machine_facts())
    print(f"at the start, {common.load_text()}")
    print(f"ONNX Runtime {onnxruntime.__version__} (CPUExecutionProvider), PyTorch {torch.__version__} (exports), "
          f"{common.kiln_version(args.kiln)} at {os.path.abspath(args.kiln)}")
    print(f"median of at least {common.MIN_RUNS} runs and {args.seconds:g} s per measurement, in ms; FP32/INT8 = "
          f"Kiln's speed-up, INT8/ORT = Kiln INT8 over ONNX Runtime on the same Q/DQ model")
    passed = True
    with tempfile.TemporaryDirectory(prefix="kiln_int8_bench_") as scratch:
        cache = args.cache or scratch
        os.makedirs(cache, exist_ok=True)
        print(HEADER, flush=True)
        for name in args.models:
            model = MODELS[name]
            fp32, names = common.exported_model(model, cache)
            paths = {"fp32": fp32, "int8": quantized_model(model, fp32, names, cache, args.modelopt_python)}
            for batch in args.batches:
                passed = measure_batch(args, model, paths, names, batch, scratch) and passed
    print(f"at the end, {common.load_text()}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
