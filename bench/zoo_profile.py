#!/usr/bin/env python3
"""Where Kiln's GPU time goes on the zoo's real-size models: for each model and precision, kiln's per-layer profile
(--exportProfile, CUDA events around each layer) joined with the plan's layer information (--exportLayerInfo), summed
by layer type and kernel (TacticName), largest first. The raw profiles go to --out.

Usage: zoo_profile.py --kiln build/tools/kiln/kiln --only vit,bert [--precisions fp16,fp32] [--batch 8] [--out DIR]
    [--top 12]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
sys.path.insert(0, HERE)
import export_zoo  # noqa: E402
import zoo_engines  # noqa: E402
import zoo_gpu  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--only", required=True, help="comma-separated model names")
    parser.add_argument("--precisions", default="fp16,fp32")
    parser.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for the raw profiles")
    parser.add_argument("--top", type=int, default=12, help="rows of the breakdown per model and precision")
    parser.add_argument("--extra", default="", help="more kiln flags, space-separated")
    parser.add_argument("--batch", type=int, default=0,
                        help="rows of every input, where the export's batch axis is dynamic (0: the export's own)")
    return parser.parse_args()


def layer_kinds(info_path):
    """Layer name -> 'Type (tactic)' from kiln's --exportLayerInfo."""
    with open(info_path) as f:
        layers = json.load(f)["Layers"]
    kinds = {}
    for layer in layers:
        tactic = layer.get("TacticName", "")
        kinds[layer["Name"]] = layer["LayerType"] + (f" ({tactic})" if tactic else "")
    return kinds


def profile(args, name, onnx_path, spec, inputs, folder, precision):
    kiln = zoo_engines.KilnModel(args.kiln, "cuda", onnx_path, spec.input_names, inputs, folder)
    stem = os.path.join(args.out, f"{name}_{precision}")
    command = [args.kiln, f"--onnx={onnx_path}", "--duration=1", "--separateProfileRun", "--useCudaGraph",
               f"--exportProfile={stem}_profile.json", f"--exportLayerInfo={stem}_layers.json"] + kiln.common
    command += (["--fp16"] if precision == "fp16" else []) + args.extra.split()
    run = subprocess.run(command, capture_output=True, text=True)
    report = run.stdout + run.stderr
    if run.returncode != 0:
        print(f"{name} {precision}: kiln failed: {zoo_engines.first_error(report)}", flush=True)
        return
    for line in report.splitlines():
        if "GPU Compute Time" in line:
            print(f"{name} {precision}: {line.strip()}")
    with open(f"{stem}_profile.json") as f:
        rows = json.load(f)[1:]
    kinds = layer_kinds(f"{stem}_layers.json")
    by_kind = collections.defaultdict(lambda: [0.0, 0])
    for row in rows:
        kind = kinds.get(row["name"], "fused/other")
        by_kind[kind][0] += row["medianMs"]
        by_kind[kind][1] += 1
    total = sum(ms for ms, _ in by_kind.values())
    print(f"  {len(rows)} timed layers, sum of medians {total:.3f} ms")
    for kind, (ms, count) in sorted(by_kind.items(), key=lambda item: -item[1][0])[:args.top]:
        print(f"  {ms:8.3f} ms {ms / total * 100:5.1f}% {count:4d} x  {kind[:110]}")
    print(flush=True)


def main():
    args = parse_args()
    wanted = args.only.split(",")
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as root:
        for model in zoo_gpu.MODELS:
            if model.name not in wanted:
                continue
            folder = os.path.join(root, model.name)
            path, _, spec = export_zoo.export(model, False, folder)
            inputs = zoo_engines.batched_inputs(spec, args.batch)
            for precision in args.precisions.split(","):
                profile(args, model.name, path, spec, inputs, folder, precision)
    return 0


if __name__ == "__main__":
    sys.exit(main())
