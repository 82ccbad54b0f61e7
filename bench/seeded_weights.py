#!/usr/bin/env python3
"""Large weights that travel as seeds. ViT-B/16's 86 M weights take 330 MB in FP32 and 86 MB as INT8 or FP8 codes,
more than a file may take of the GPU machine's transfer limit. Drawn from numpy's legacy random stream (RandomState,
whose values numpy keeps the same from version to version), they can be left out of the file and drawn again where it
runs; the rest of the model takes a few MB.

  seed MODEL OUTPUT          replaces each FP32 initializer of MODEL of at least MIN_ELEMENTS elements by normal
                             values of a seed of its own and the original's standard deviation (to two digits), and
                             writes the draws beside OUTPUT (OUTPUT.draws.json). A Q/DQ model that Model Optimizer
                             makes from OUTPUT keeps those arrays as FP32 initializers behind its QuantizeLinear layers.
  strip MODEL DRAWS OUTPUT   leaves out of MODEL each initializer that one of DRAWS makes, found by its values, and
                             records the draw and a digest of the values in OUTPUT's metadata (SEEDS_KEY)
  restore MODEL OUTPUT       draws the left-out initializers again, each checked against its digest

Usage: seeded_weights.py seed MODEL OUTPUT | strip MODEL DRAWS OUTPUT | restore MODEL OUTPUT
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

MIN_ELEMENTS = 1 << 16
SEEDS_KEY = "kiln.seeded_weights"
FIRST_SEED = 1000


def export_beside(quantized_path):
    """Where the seeded FP32 export that a quantized model was made from goes, stripped as the model is: beside it, so
    that the quantized and unquantized rows of a benchmark run one graph."""
    return os.path.splitext(quantized_path)[0] + ".seeded_fp32.onnx"


def drawn(draw):
    """The values of `draw` ({"seed", "shape", "std"}): normal, times the standard deviation, as FP32."""
    values = np.random.RandomState(draw["seed"]).standard_normal(draw["shape"]) * draw["std"]
    return values.astype(np.float32)


def digest(values):
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()


def large_floats(model):
    """The FP32 initializers of `model` with at least MIN_ELEMENTS elements."""
    return [t for t in model.graph.initializer
            if t.data_type == onnx.TensorProto.FLOAT and int(np.prod(t.dims)) >= MIN_ELEMENTS]


def seed(model):
    """Replaces each large FP32 initializer of `model` by a draw of its own; returns the draws."""
    draws = []
    for tensor in large_floats(model):
        original = numpy_helper.to_array(tensor)
        draw = {"seed": FIRST_SEED + len(draws), "shape": list(original.shape),
                "std": float(f"{max(float(original.std()), 1e-3):.2g}")}
        tensor.CopyFrom(numpy_helper.from_array(drawn(draw), tensor.name))
        draws.append(draw)
    return draws


def strip(model, draws):
    """Leaves out of `model` the initializers that `draws` make; returns how many of its large ones stay."""
    by_digest = {}
    for draw in draws:
        by_digest[digest(drawn(draw))] = draw
    records, kept = [], 0
    for tensor in large_floats(model):
        values_digest = digest(numpy_helper.to_array(tensor))
        draw = by_digest.get(values_digest)
        if draw is None or list(tensor.dims) != draw["shape"]:
            kept += 1
            continue
        records.append({"name": tensor.name, "digest": values_digest, **draw})
        tensor.ClearField("raw_data")
        tensor.ClearField("float_data")
    props = {p.key: p.value for p in model.metadata_props}
    props[SEEDS_KEY] = json.dumps(records)
    onnx.helper.set_model_props(model, props)
    return kept


def restore(model):
    """Draws the initializers that `strip` left out of `model` again; returns how many."""
    props = {p.key: p.value for p in model.metadata_props}
    records = json.loads(props.get(SEEDS_KEY, "[]"))
    tensors = {t.name: t for t in model.graph.initializer}
    for record in records:
        values = drawn(record)
        if digest(values) != record["digest"]:
            raise SystemExit(f"{record['name']}: seed {record['seed']} draws other values here than where the model "
                             "was stripped (numpy's legacy random stream changed?)")
        tensors[record["name"]].CopyFrom(numpy_helper.from_array(values, record["name"]))
    return len(records)


def main():
    step = sys.argv[1] if len(sys.argv) > 1 else ""
    if (step, len(sys.argv)) not in (("seed", 4), ("strip", 5), ("restore", 4)):
        print(__doc__, file=sys.stderr)
        return 2
    model = onnx.load(sys.argv[2])
    output = sys.argv[-1]
    if step == "seed":
        draws = seed(model)
        with open(output + ".draws.json", "w") as f:
            json.dump(draws, f)
        print(f"{len(draws)} initializers drawn")
    elif step == "strip":
        with open(sys.argv[3]) as f:
            kept = strip(model, json.load(f))
        print(f"{len(model.graph.initializer)} initializers, {kept} large ones kept")
    else:
        print(f"{restore(model)} initializers drawn again")
    onnx.save(model, output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
