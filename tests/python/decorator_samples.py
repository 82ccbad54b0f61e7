"""What the decorator-plugin sample tests share between the CPU and the CUDA backend: the config for aliased plugin
I/O, and the circular-padding plugin's ONNX model and numpy reference."""

import numpy as np
import pytest

import kiln.tensorrt as trt


def aliasing_config(config):
    """The config with TensorRT's preview feature for aliased plugin I/O, which the sample sets, where Kiln has it."""
    if hasattr(trt, "PreviewFeature"):
        config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    return config


def circ_pad_reference(x, pads):
    """numpy's wrap padding: torch's pad order, the last axis by pads[0:2] and the one before by pads[2:4]."""
    return np.pad(x, [[0, 0], [0, 0], [pads[2], pads[3]], [pads[0], pads[1]]], "wrap")


def circ_pad_onnx(shape, pads, namespace="kiln_qdp"):
    """A model of one node whose op type is the plugin's name, its namespace and pads attributes."""
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    node = helper.make_node("circ_pad", ["x"], ["y"], name="circ_pad_plugin 0", plugin_namespace=namespace,
                            pads=helper.make_tensor("pads", onnx.TensorProto.INT32, [len(pads)], list(pads)))
    graph = helper.make_graph([node], "circ_pad", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]).SerializeToString()
