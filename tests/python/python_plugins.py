"""Plugins written in Python for the tests, in the structure of TensorRT's Python plugin samples: an IPluginV3 that
derives from the three capability classes, and its IPluginCreatorV3One.

CircularPad pads the last dimension circularly (numpy's "wrap" mode) by the field "pads" = [before, after] and
multiplies by the field "scale"; it runs in numpy on the host addresses Kiln's CPU backend hands to enqueue.
"""

import ctypes
import itertools

import numpy as np

import kiln.tensorrt as trt


def host_array(address, desc):
    """The numpy view of a tensor that enqueue got as a host address and a PluginTensorDesc."""
    dtype = np.dtype(trt.nptype(desc.type))
    count = int(np.prod(desc.dims)) if len(desc.dims) else 1
    buffer = (ctypes.c_byte * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype=dtype).reshape(tuple(desc.dims))


class CircularPad(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    def __init__(self, pads, scale, phase, log, namespace=""):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuild.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        self.plugin_name = "CircularPad"
        self.plugin_version = "1"
        self.plugin_namespace = namespace
        self.num_outputs = 1
        self.pads = np.asarray(pads, np.int32)
        self.scale = np.asarray(scale, np.float32)
        self.phase = phase
        self.log = log  # the calls Kiln made, for the tests to check
        self.input_shape = None

    def get_capability_interface(self, type):
        return self

    def clone(self):
        copy = type(self)(self.pads, self.scale, self.phase, self.log, self.plugin_namespace)
        copy.input_shape = self.input_shape
        return copy

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        self.log.append("get_output_shapes")
        shape = trt.DimsExprs(inputs[0])
        last = len(shape) - 1
        added = expr_builder.constant(int(self.pads[0] + self.pads[1]))
        shape[last] = expr_builder.operation(trt.DimensionOperation.SUM, inputs[0][last], added)
        return [shape]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        if desc.format != trt.TensorFormat.LINEAR:
            return False
        return desc.type == trt.DataType.FLOAT if pos == 0 else desc.type == in_out[0].desc.type

    def configure_plugin(self, inputs, outputs):
        self.log.append(("configure_plugin", tuple(inputs[0].max), tuple(outputs[0].max)))

    def on_shape_change(self, inputs, outputs):
        self.input_shape = tuple(inputs[0].dims)
        self.log.append(("on_shape_change", self.input_shape, tuple(outputs[0].dims)))

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue", stream))
        x = host_array(inputs[0], input_desc[0])
        y = host_array(outputs[0], output_desc[0])
        pad_width = [(0, 0)] * (x.ndim - 1) + [(int(self.pads[0]), int(self.pads[1]))]
        y[...] = np.pad(x, pad_width, mode="wrap") * self.scale[0]

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [
                trt.PluginField("pads", self.pads, trt.PluginFieldType.INT32),
                trt.PluginField("scale", self.scale, trt.PluginFieldType.FLOAT32),
            ]
        )


class CircularPadCreator(trt.IPluginCreatorV3One):
    """Makes `plugin_class` plugins (CircularPad or a subclass), recording the name, phase and fields of every
    create_plugin call."""

    def __init__(self, namespace="", plugin_class=CircularPad):
        trt.IPluginCreatorV3One.__init__(self)
        self.name = "CircularPad"
        self.plugin_version = "1"
        self.plugin_namespace = namespace
        self.field_names = trt.PluginFieldCollection(
            [
                trt.PluginField("pads", np.array([], np.int32), trt.PluginFieldType.INT32),
                trt.PluginField("scale", np.array([], np.float32), trt.PluginFieldType.FLOAT32),
            ]
        )
        self.plugin_class = plugin_class
        self.created = []
        self.log = []

    def create_plugin(self, name, fc, phase):
        fields = {field.name: np.array(field.data) for field in fc}
        self.created.append((name, phase, fields))
        return self.plugin_class(fields["pads"], fields["scale"], phase, self.log, self.plugin_namespace)


def circular_pad_reference(x, pads, scale):
    """What CircularPad computes, written out with index arithmetic rather than np.pad."""
    width = x.shape[-1]
    columns = [(j - pads[0]) % width for j in range(width + pads[0] + pads[1])]
    return x[..., columns] * scale


_namespaces = itertools.count()


def registered_creator(plugin_class=CircularPad):
    """A creator registered under a namespace of its own (the registry is the process's), which only the registry
    holds afterwards: Kiln must keep it alive until the plan is loaded."""
    namespace = f"py_test_{next(_namespaces)}"
    creator = CircularPadCreator(namespace, plugin_class)
    assert trt.get_plugin_registry().register_creator(creator, namespace)
    return trt.get_plugin_registry().get_creator("CircularPad", "1", namespace)


def pad_fields(pads, scale):
    return trt.PluginFieldCollection(
        [
            trt.PluginField("pads", np.array(pads, np.int32), trt.PluginFieldType.INT32),
            trt.PluginField("scale", np.array([scale], np.float32), trt.PluginFieldType.FLOAT32),
        ]
    )


def pad_then_gelu_network(builder, plugin, shape):
    """x -> the Python plugin -> CustomGeluPluginDynamic (a V2 plugin of Kiln's collection) -> y; returns the network
    and the plugin's layer."""
    assert trt.init_libnvinfer_plugins(trt.Logger(), "")
    gelu = trt.get_plugin_registry().get_plugin_creator("CustomGeluPluginDynamic", "1", "")
    type_id = trt.PluginField("type_id", np.array([0], np.int32), trt.PluginFieldType.INT32)
    gelu_plugin = gelu.create_plugin("gelu", trt.PluginFieldCollection([type_id]))
    network = builder.create_network()
    x = network.add_input("x", trt.float32, shape)
    padded = network.add_plugin_v3([x], [], plugin)
    activated = network.add_plugin_v2([padded.get_output(0)], gelu_plugin)
    activated.get_output(0).name = "y"
    network.mark_output(activated.get_output(0))
    return network, padded


def gelu_reference(x):
    """GELU's tanh approximation, which CustomGeluPluginDynamic computes."""
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
