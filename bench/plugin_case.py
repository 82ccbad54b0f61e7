"""What one row of bench/plugins_gpu.py is, and the ONNX file with one plugin node that Kiln runs for it.

A Case names a plugin, its peer and two sizes (real, and small for the CPU smoke run), and makes an Instance at
either size and precision. The ONNX node is written the way TensorRT's ONNX plugin fallback reads it: op_type is the
plugin's name, `plugin_version` chooses the creator, and every other attribute becomes the field of the same name
(INT -> kINT32, FLOAT -> kFLOAT32, INTS/FLOATS -> arrays, a TENSOR attribute -> an array of its element type).
"""
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import onnx
from onnx import helper, numpy_helper


@dataclass
class Instance:
    """A case at one size and precision: the model, its inputs, the peer and how to compare them."""

    model: onnx.ModelProto
    inputs: Dict[str, np.ndarray]  # graph inputs, written to raw files for kiln's --loadInputs
    shape: str  # what the row prints as the shape
    # peer(device) puts its tensors on the device and returns a call with no arguments: what is timed.
    peer: Callable[[Any], Callable[[], Any]]
    # check(kiln outputs by name, the peer call's result) -> a short text for the row.
    check: Callable[[Dict[str, np.ndarray], Any], str]
    bytes_moved: int = 0  # bytes a memory-bound plugin must read and write at least; 0: not memory-bound


@dataclass
class Case:
    name: str  # the row's label, also what --only selects
    plugin: str
    peer_name: str
    fp16: bool  # whether the plugin has an FP16 form
    build: Callable[..., Instance]  # build(rng, fp16, *sizes)
    real: tuple  # the sizes timed on the GPU
    small: tuple  # the sizes of the CPU smoke test

    def make(self, small, fp16):
        """The instance at the small or real sizes; inputs come from seed 0, so every run sees the same data."""
        return self.build(np.random.default_rng(0), fp16, *(self.small if small else self.real))


def float_type(fp16):
    return np.float16 if fp16 else np.float32


def plugin_model(plugin, version, inputs, outputs, fields, constants=None, order=None):
    """A model of one plugin node.

    inputs: graph inputs by name (arrays); constants: initializers by name (arrays); order: the node's input names
    in the plugin's order (default: inputs then constants, as given); outputs: the node's output names; fields:
    attribute values (int, float, str, lists, or numpy arrays, which become TENSOR attributes).
    """
    constants = constants or {}
    order = order or list(inputs) + list(constants)
    attributes = {name: numpy_helper.from_array(np.ascontiguousarray(value), name)
                  if isinstance(value, np.ndarray) else value for name, value in fields.items()}
    node = helper.make_node(plugin, order, outputs, name=plugin.lower(), plugin_version=version, **attributes)
    graph_inputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)
                    for name, array in inputs.items()]
    # Output types and shapes are the plugin's to say: left undefined here.
    graph_outputs = [helper.make_tensor_value_info(name, onnx.TensorProto.UNDEFINED, None) for name in outputs]
    initializers = [numpy_helper.from_array(np.ascontiguousarray(array), name) for name, array in constants.items()]
    graph = helper.make_graph([node], plugin, graph_inputs, graph_outputs, initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def override_builtin(model):
    """Marks the node so that a registered plugin replaces the ONNX op of the same name (ScatterND): TensorRT's
    parser does so when the node has a plugin_namespace attribute."""
    model.graph.node[0].attribute.append(helper.make_attribute("plugin_namespace", ""))
    return model


def to_device(arrays: Dict[str, np.ndarray], device, names: Optional[List[str]] = None):
    """torch tensors of the named arrays (all by default) on device. On the CPU (the smoke test) FP16 arrays become
    FP32 tensors: PyTorch's CPU kernels lack FP16 for nms, deform_conv2d and others."""
    import torch

    def tensor(array):
        if device.type == "cpu" and array.dtype == np.float16:
            array = array.astype(np.float32)
        return torch.from_numpy(np.ascontiguousarray(array)).to(device)

    return {name: tensor(arrays[name]) for name in (names or list(arrays))}
