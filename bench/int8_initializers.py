#!/usr/bin/env python3
"""Writes a Q/DQ model's quantized weights as INT8 initializers: each QuantizeLinear of a constant FP32 weight (as
NVIDIA Model Optimizer exports them: FP32 initializer -> QuantizeLinear -> DequantizeLinear) is computed once, as
ONNX defines it (round half to even, saturate to [-128, 127], zero point 0), and replaced by its INT8 result, which the
DequantizeLinear then reads. The model computes exactly what it computed before, in a quarter of the weights' bytes:
ResNet-50's export shrinks from 102 MB to 32 MB, small enough to travel to the GPU machine beside the tree.

Usage: int8_initializers.py MODEL.onnx OUTPUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def quantized(weight, scale, axis):
    """ONNX QuantizeLinear of `weight` into INT8 with a zero point of 0, per tensor or per `axis`."""
    if scale.ndim == 1 and scale.size > 1:
        shape = [1] * weight.ndim
        shape[axis] = scale.size
        scale = scale.reshape(shape)
    values = np.rint(weight.astype(np.float32) / scale.astype(np.float32))  # rint: half to even
    return np.clip(values, -128, 127).astype(np.int8)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    model = onnx.load(sys.argv[1])
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    replaced = 0
    kept = []
    for node in graph.node:
        weight = initializers.get(node.input[0]) if node.op_type == "QuantizeLinear" else None
        zero_point = initializers.get(node.input[2]) if weight is not None and len(node.input) > 2 else None
        scale = initializers.get(node.input[1]) if weight is not None else None
        takes = (weight is not None and scale is not None and weight.data_type == onnx.TensorProto.FLOAT
                 and (zero_point is None or zero_point.data_type == onnx.TensorProto.INT8)
                 and (zero_point is None or not numpy_helper.to_array(zero_point).any()))
        if not takes:
            kept.append(node)
            continue
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        values = quantized(numpy_helper.to_array(weight), numpy_helper.to_array(scale), axis)
        graph.initializer.append(numpy_helper.from_array(values, node.output[0]))
        replaced += 1
    del graph.node[:]
    graph.node.extend(kept)
    # FP32 weights no node reads any more go.
    still_read = {name for node in graph.node for name in node.input}
    unread = [i for i in graph.initializer if i.name not in still_read and i.name not in {o.name for o in graph.output}]
    for initializer in unread:
        graph.initializer.remove(initializer)
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])
    print(f"{replaced} weight quantizations computed into INT8 initializers; {len(unread)} FP32 weights dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
