#!/usr/bin/env python3
"""How far Kiln's CUDA run of a Q/DQ model lies from ONNX Runtime's CPU run of the same model: one batch of random
images (numpy, seed 0, uniform in [0, 1)), the logits' largest difference and the images whose top-1 class agrees.
Kiln sums INT8 products exactly in INT32 and ONNX Runtime too, but the two round the scaled sums apart, so an output
near an INT8 step's boundary may take the neighbouring step in either, and such steps compound over the layers.

Usage: gpu_int8_agreement.py --kiln KILN --model M.onnx[.gz] [--batch 8] [--size 224] [--flag=--int8]
Needs numpy and onnxruntime (the GPU machine has both).
"""
import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_onnxruntime  # noqa: E402  (its raw-input and exported-output helpers)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=224, help="the images' height and width (gpu_int8.py's MODELS)")
    parser.add_argument("--flag", default="--int8", help="kiln's precision flag for the model")
    args = parser.parse_args()
    import onnxruntime

    with tempfile.TemporaryDirectory() as scratch:
        model = args.model
        if model.endswith(".gz"):
            model = os.path.join(scratch, "model.onnx")
            with gzip.open(args.model, "rb") as packed, open(model, "wb") as unpacked:
                shutil.copyfileobj(packed, unpacked)
        session = onnxruntime.InferenceSession(model, providers=["CPUExecutionProvider"])
        name = session.get_inputs()[0].name
        images = np.random.default_rng(0).random((args.batch, 3, args.size, args.size), dtype=np.float32)
        expected = session.run(None, {name: images})[0]
        shapes, loads = cpu_onnxruntime.write_raw_inputs([name], [images], scratch)
        exported = os.path.join(scratch, "kiln.json")
        run = subprocess.run([args.kiln, f"--onnx={model}", "--backend=cuda", args.flag, f"--shapes={shapes}",
                              f"--loadInputs={loads}", "--iterations=1", "--duration=0", "--warmUp=0",
                              f"--exportOutput={exported}"], capture_output=True, text=True)
        if run.returncode != 0:
            print("kiln failed:", cpu_onnxruntime.kiln_failure(run.stdout + run.stderr, run.returncode))
            return 1
        got = next(iter(cpu_onnxruntime.read_kiln_outputs(exported).values())).reshape(expected.shape)
    difference = np.abs(got - expected)
    agree = int((got.argmax(axis=1) == expected.argmax(axis=1)).sum())
    print(f"{os.path.basename(args.model)} batch {args.batch}, Kiln CUDA {args.flag} against ONNX Runtime CPU: "
          f"logits' largest difference {difference.max():.4f} (their spread {np.ptp(expected):.2f}), mean "
          f"{difference.mean():.4f}; top-1 agrees on {agree} of {args.batch} images")
    return 0


if __name__ == "__main__":
    sys.exit(main())
