#!/usr/bin/env python3
"""Writes the small ONNX models of tests/triton/models that the Triton backend's tests need and the zoo lacks.

- selected_scores.onnx: input `scores` (FP32, [n], n dynamic); outputs `indices` (INT64, [1, k]), where the scores
  are above 0.5 (NonZero), and `selected` (FP32, [k]), those scores (Gather). k depends on the values, not on the
  shapes: both outputs have data-dependent shapes. The tests' expectation is numpy's np.nonzero(scores > 0.5).

Needs onnx (tests/requirements.txt). Usage: make_models.py [--out DIR]
"""
import argparse
import os

import onnx
from onnx import TensorProto, helper


def selected_scores():
    threshold = helper.make_tensor("threshold", TensorProto.FLOAT, [], [0.5])
    nodes = [
        helper.make_node("Greater", ["scores", "threshold"], ["above"]),
        helper.make_node("NonZero", ["above"], ["indices"]),
        helper.make_node("Squeeze", ["indices", "axis0"], ["positions"]),
        helper.make_node("Gather", ["scores", "positions"], ["selected"], axis=0),
    ]
    axis0 = helper.make_tensor("axis0", TensorProto.INT64, [1], [0])
    graph = helper.make_graph(
        nodes, "selected_scores",
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("indices", TensorProto.INT64, [1, "k"]),
         helper.make_tensor_value_info("selected", TensorProto.FLOAT, ["k"])],
        initializer=[threshold, axis0])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="kiln-tests")
    onnx.checker.check_model(model, full_check=True)
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "models"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    onnx.save(selected_scores(), os.path.join(args.out, "selected_scores.onnx"))


if __name__ == "__main__":
    main()
