#!/usr/bin/env python3
"""The model zoo's real sizes on Kiln's CPU backend beside ONNX Runtime's CPU provider (issue 51's CPU target: every zoo
CNN and transformer at most 1.0x ONNX Runtime's time on two threads).

Each model of tests/models/zoo_models.py (its real configuration, random weights of seed 0, exported by
tests/models/export_zoo.py's `export` at opset 17 with the inputs it draws) runs on ONNX Runtime and then on
`kiln --backend=cpu --cpuKernels=fast`, on the same inputs and the same number of threads, timed as
cpu_onnxruntime.py times them (its measuring functions: the median of at least 5 runs over --seconds after 1 s of
warm-up), with the largest difference between their outputs scaled by the largest output. Exports are kept in --cache
and reused. --busy N runs N busy-loop processes beside the whole run, as other work sharing the cores would (the
issue's loaded target: at most 1.5x ONNX Runtime's time under the same load). Needs torch, torchvision, timm and
transformers for the exports, and onnxruntime.

Usage: cpu_zoo.py --kiln build/tools/kiln/kiln [--only resnest,poolformer] [--threads 2] [--seconds 2] [--busy N]
                  [--cache /tmp/zoo-real]
"""
import argparse
import glob
import os
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))

import cpu_onnxruntime as measuring  # noqa: E402 (after the path)
import export_zoo  # noqa: E402
import zoo_models  # noqa: E402

# The CNNs and transformers whose real size runs in seconds on two cores (the recurrent models and the detection
# pipelines with their post-processing are left out).
DEFAULT_MODELS = ("shufflenet_v2,mobilenet_v3,efficientnet,regnet,ssdlite_backbone_head,convnext,resnest,poolformer,"
                  "mobilevit,vit,deit,swin,bert,distilbert,gpt2,whisper_encoder,yolo_style")


def exported(model, cache):
    """The model's real-size export and its inputs, made once into `cache`."""
    directory = os.path.join(cache, model.name)
    path = os.path.join(directory, "model.onnx")
    if not os.path.exists(path):
        export_zoo.export(model, False, directory)
    arrays = [np.load(name) for name in sorted(glob.glob(os.path.join(directory, "input_*.npy")))]
    graph = onnx.load(path, load_external_data=False).graph
    constants = {initializer.name for initializer in graph.initializer}
    names = [value.name for value in graph.input if value.name not in constants]
    return path, names, arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--only", default=DEFAULT_MODELS, help="comma-separated zoo models")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "kiln-zoo-real"),
                        help="where the exports are kept")
    parser.add_argument("--busy", type=int, default=0,
                        help="run this many busy-loop processes beside the whole run, as other work sharing the cores")
    args = parser.parse_args()
    if args.busy < 0:
        parser.error("--busy takes a count of processes, 0 or more")
    busy = measuring.start_busy_loops(args.busy)
    try:
        measure(args)
    finally:
        for process in busy:
            process.kill()
            process.wait()


def measure(args):
    """Every model of --only on both engines, a row each."""
    wanted = args.only.split(",")
    print(measuring.machine_facts())
    if args.busy:
        print(f"with {args.busy} busy-loop process{'es' if args.busy > 1 else ''} running beside the whole run")
    print(f"at the start, {measuring.load_text()}")
    print(f"{'model':<22} {'ORT ms':>9} {'Kiln ms':>9} {'Kiln/ORT':>8} {'diff/ref':>8} {'load':>5}", flush=True)
    for model in [m for m in zoo_models.MODELS if m.name in wanted]:
        try:
            path, names, arrays = exported(model, args.cache)
        except Exception as error:  # an export failure is a row, not the end of the table
            print(f"{model.name:<22} export failed: {type(error).__name__}: {str(error)[:100]}", flush=True)
            continue
        ort_ms, reference = measuring.ort_measure(path, names, arrays, args.threads, args.seconds)
        with tempfile.TemporaryDirectory() as scratch:
            kiln_ms, outputs = measuring.kiln_measure(
                args.kiln, path, names, arrays, args.threads, "fast", args.seconds, scratch)
        if kiln_ms is None:
            print(f"{model.name:<22} {ort_ms:9.2f} {'failed':>9}  kiln: {outputs}", flush=True)
            continue
        difference = measuring.scaled_difference(reference, outputs)
        print(f"{model.name:<22} {ort_ms:9.2f} {kiln_ms:9.2f} {kiln_ms / ort_ms:7.2f}x {difference:8.1e} "
              f"{os.getloadavg()[0]:5.2f}", flush=True)
    print(f"at the end, {measuring.load_text()}")


if __name__ == "__main__":
    main()
