"""Plugins written in Python in the forms NVIDIA's TensorRT Python plugin samples use, written afresh for the tests:

- CircPadV2: a trt.IPluginV2DynamicExt with a trt.IPluginCreator; serialize() returns JSON text and the creator's
  deserialize_plugin reads it back, as the circ_pad samples do.
- SharedCounter: a trt.IPluginResource that plugins share through the registry (the samples share a CUDA context).
- ResourceScale: an IPluginV3 that acquires a shared resource when it attaches to a context and releases it on
  destroy().
- MultiTacticPad: an IPluginV3 with two tactics, one slow, as the multi-tactic sample offers two implementations.
- ScatterAdd: an IPluginV3OneBuildV2 plugin whose output aliases an input, as the aliased-I/O sample's.
- NonZero: an IPluginV3 with a data-dependent output and a size tensor, as the non-zero sample's.

Each computes in numpy on the host addresses Kiln's CPU backend hands to enqueue.
"""

import ctypes
import itertools
import json
import time

import numpy as np

import kiln.tensorrt as trt
from python_plugins import host_array

_namespaces = itertools.count()


def fresh_namespace(prefix):
    """A namespace of its own for each registration: the registry is the process's."""
    return f"{prefix}_{next(_namespaces)}"


def circular_pad_reference(x, pads):
    """Pads axis (rank - 1 - i) circularly by (pads[2i], pads[2i+1]), written with index arithmetic."""
    y = x
    for pair in range(len(pads) // 2):
        axis = x.ndim - 1 - pair
        before, after = pads[2 * pair], pads[2 * pair + 1]
        width = y.shape[axis]
        columns = [(j - before) % width for j in range(width + before + after)]
        y = np.take(y, columns, axis=axis)
    return y


class CircPadV2(trt.IPluginV2DynamicExt):
    """Pads the last len(pads) // 2 axes circularly; pads pairs as torch.nn.functional.pad orders them."""

    def __init__(self, pads=(), log=None, namespace=""):
        trt.IPluginV2DynamicExt.__init__(self)
        self.num_outputs = 1
        self.plugin_type = "CircPadV2"
        self.plugin_version = "1"
        self.plugin_namespace = namespace
        self.pads = np.asarray(pads, np.int32)  # numpy integers reach expr_builder.constant, as in the samples
        self.log = log if log is not None else []

    def get_output_datatype(self, index, input_types):
        return input_types[0]

    def get_output_dimensions(self, output_index, inputs, expr_builder):
        dims = trt.DimsExprs(inputs[0])
        for pair in range(len(self.pads) // 2):
            axis = len(dims) - 1 - pair
            added = expr_builder.constant(self.pads[2 * pair] + self.pads[2 * pair + 1])
            dims[axis] = expr_builder.operation(trt.DimensionOperation.SUM, inputs[0][axis], added)
        return dims

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos]
        if desc.format != trt.TensorFormat.LINEAR:
            return False
        return desc.type == trt.DataType.FLOAT if pos == 0 else desc.type == in_out[0].type

    def configure_plugin(self, inputs, outputs):
        self.log.append(("configure_plugin", tuple(inputs[0].desc.dims)))

    def initialize(self):
        self.log.append("initialize")
        return 0

    def terminate(self):
        self.log.append("terminate")

    def serialize(self):
        return json.dumps({"pads": self.pads.tolist()})

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue", stream))
        x = host_array(inputs[0], input_desc[0])
        y = host_array(outputs[0], output_desc[0])
        widths = [(0, 0)] * x.ndim
        for pair in range(len(self.pads) // 2):
            widths[x.ndim - 1 - pair] = (int(self.pads[2 * pair]), int(self.pads[2 * pair + 1]))
        y[...] = np.pad(x, widths, mode="wrap")
        return 0

    def clone(self):
        copy = type(self)(self.pads, self.log, self.plugin_namespace)
        return copy

    def destroy(self):
        self.log.append("destroy")


class CircPadV2Creator(trt.IPluginCreator):
    def __init__(self, namespace, plugin_class=CircPadV2):
        trt.IPluginCreator.__init__(self)
        self.name = "CircPadV2"
        self.plugin_version = "1"
        self.plugin_namespace = namespace
        self.field_names = trt.PluginFieldCollection(
            [trt.PluginField("pads", np.array([], np.int32), trt.PluginFieldType.INT32)]
        )
        self.plugin_class = plugin_class
        self.log = []
        self.deserialized = []

    def create_plugin(self, name, fc):
        pads = [field.data for field in fc if field.name == "pads"][0]
        return self.plugin_class(pads, self.log, self.plugin_namespace)

    def deserialize_plugin(self, name, data):
        self.deserialized.append((name, data))
        return self.plugin_class(json.loads(data.decode("utf-8"))["pads"], self.log, self.plugin_namespace)


def registered_v2_creator(plugin_class=CircPadV2):
    namespace = fresh_namespace("py_v2")
    creator = CircPadV2Creator(namespace, plugin_class)
    assert trt.get_plugin_registry().register_creator(creator, namespace)
    return creator


def pads_field(pads):
    return trt.PluginFieldCollection([trt.PluginField("pads", np.array(pads, np.int32), trt.PluginFieldType.INT32)])


class SharedCounter(trt.IPluginResource):
    """A resource holding a value; counts, in a log shared by every copy, the clones and releases."""

    def __init__(self, value, log):
        trt.IPluginResource.__init__(self)
        self.value = value
        self.log = log
        self.released = False

    def clone(self):
        self.log.append(("clone", self.value))
        return SharedCounter(self.value, self.log)

    def release(self):
        self.log.append(("release", self.value))
        self.released = True


class ResourceScale(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """y = x * the value of the resource under `key`, acquired when the plugin attaches to an execution context (with
    `value` as the resource offered, used only if the key is new) and released by destroy()."""

    def __init__(self, key, value, log, namespace):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuild.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        self.plugin_name, self.plugin_version, self.plugin_namespace = "ResourceScale", "1", namespace
        self.num_outputs = 1
        self.key, self.value, self.log = key, value, log
        self.resource = None

    def get_capability_interface(self, type):
        return self

    def clone(self):
        return ResourceScale(self.key, self.value, self.log, self.plugin_namespace)

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(inputs[0])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        return in_out[pos].desc.type == trt.DataType.FLOAT and in_out[pos].desc.format == trt.TensorFormat.LINEAR

    def configure_plugin(self, inputs, outputs):
        pass

    def on_shape_change(self, inputs, outputs):
        pass

    def attach_to_context(self, context):
        attached = self.clone()
        attached.resource = trt.get_plugin_registry().acquire_plugin_resource(
            self.key, SharedCounter(self.value, self.log)
        )
        return attached

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        host_array(outputs[0], output_desc[0])[...] = host_array(inputs[0], input_desc[0]) * self.resource.value

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [
                trt.PluginField("key", np.frombuffer(self.key.encode(), np.int8), trt.PluginFieldType.CHAR),
                trt.PluginField("value", np.array([self.value], np.float32), trt.PluginFieldType.FLOAT32),
            ]
        )

    def destroy(self):
        if self.resource is not None:
            self.log.append(("released by plugin", trt.get_plugin_registry().release_plugin_resource(self.key)))
            self.resource = None


class ResourceScaleCreator(trt.IPluginCreatorV3One):
    def __init__(self, namespace, log):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "ResourceScale", "1", namespace
        self.field_names = trt.PluginFieldCollection([])
        self.log = log

    def create_plugin(self, name, fc, phase):
        fields = {field.name: np.array(field.data) for field in fc}
        key = fields["key"].tobytes().decode()
        return ResourceScale(key, float(fields["value"][0]), self.log, self.plugin_namespace)


class V3Base:
    """What the plugins below share (each derives from the four bases itself, as the samples write them): their own
    object as every capability, no fields, a log of calls."""

    def __init__(self, name, num_outputs, log, namespace="", build_base=trt.IPluginV3OneBuild):
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        build_base.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        self.plugin_name, self.plugin_version, self.plugin_namespace = name, "1", namespace
        self.num_outputs = num_outputs
        self.log = log

    def get_capability_interface(self, type):
        return self

    def configure_plugin(self, inputs, outputs):
        pass

    def on_shape_change(self, inputs, outputs):
        pass

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection([])


class MultiTacticPad(V3Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """Pads the last axis circularly by one on each side with one of two tactics (the same result): the tactic in
    `slow_tactic` sleeps, so that the builder's timing must pick the other. Logs set_tactic and each enqueue's tactic
    with the phase the plugin was created for."""

    def __init__(self, slow_tactic, phase, log, namespace=""):
        V3Base.__init__(self, "MultiTacticPad", 1, log, namespace)
        self.slow_tactic, self.phase = slow_tactic, phase
        self.tactic = None

    def clone(self):
        copy = MultiTacticPad(self.slow_tactic, self.phase, self.log, self.plugin_namespace)
        copy.tactic = self.tactic
        return copy

    def get_output_data_types(self, input_types):
        return [input_types[0]]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        dims = trt.DimsExprs(inputs[0])
        last = len(dims) - 1
        dims[last] = expr_builder.operation(trt.DimensionOperation.SUM, inputs[0][last], expr_builder.constant(2))
        return [dims]

    def supports_format_combination(self, pos, in_out, num_inputs):
        return in_out[pos].desc.type == trt.DataType.FLOAT and in_out[pos].desc.format == trt.TensorFormat.LINEAR

    def get_valid_tactics(self):
        return [1, 2]

    def set_tactic(self, tactic):
        self.tactic = tactic
        self.log.append(("set_tactic", self.phase, tactic))

    def on_shape_change(self, inputs, outputs):
        self.log.append(("on_shape_change", self.phase, self.tactic))

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue", self.phase, self.tactic))
        if self.tactic == self.slow_tactic:
            time.sleep(0.05)
        x = host_array(inputs[0], input_desc[0])
        host_array(outputs[0], output_desc[0])[...] = np.concatenate([x[..., -1:], x, x[..., :1]], axis=-1)

    def get_fields_to_serialize(self):
        return trt.PluginFieldCollection(
            [trt.PluginField("slow_tactic", np.array([self.slow_tactic], np.int32), trt.PluginFieldType.INT32)]
        )


class MultiTacticPadCreator(trt.IPluginCreatorV3One):
    def __init__(self, namespace, log):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = "MultiTacticPad", "1", namespace
        self.field_names = trt.PluginFieldCollection([])
        self.log = log

    def create_plugin(self, name, fc, phase):
        fields = {field.name: np.array(field.data) for field in fc}
        return MultiTacticPad(int(fields["slow_tactic"][0]), phase, self.log, self.plugin_namespace)


class ScatterAdd(V3Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuildV2, trt.IPluginV3OneRuntime):
    """out0 = x with src[k] added at row idx[k] - 1 (rows numbered from 1, as the aliased-I/O sample numbers them),
    computed in place in x's memory, which output 0 aliases (IPluginV3OneBuildV2); out1 counts the rows' additions.
    Logs whether enqueue got one address for x and out0."""

    def __init__(self, log, aliased_to=0, namespace=""):
        V3Base.__init__(self, "ScatterAdd", 2, log, namespace, trt.IPluginV3OneBuildV2)
        self.aliased_to = aliased_to

    def clone(self):
        return ScatterAdd(self.log, self.aliased_to, self.plugin_namespace)

    def get_output_data_types(self, input_types):
        return [input_types[0], trt.int64]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(inputs[0]), trt.DimsExprs([inputs[0][0], expr_builder.constant(1)])]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        wanted = trt.DataType.FLOAT if pos in (0, 1, 3) else trt.DataType.INT64
        return desc.format == trt.TensorFormat.LINEAR and desc.type == wanted

    def get_aliased_input(self, output_index):
        self.log.append(("get_aliased_input", output_index))
        return self.aliased_to if output_index == 0 else -1

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("same memory", inputs[0] == outputs[0]))
        x = host_array(inputs[0], input_desc[0])
        src = host_array(inputs[1], input_desc[1])
        idx = host_array(inputs[2], input_desc[2])
        counts = host_array(outputs[1], output_desc[1])
        counts[...] = 0
        for value, row in zip(src, idx):
            x[row - 1, 0] += value
            counts[row - 1, 0] += 1


class NonZero(V3Base, trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild, trt.IPluginV3OneRuntime):
    """The indices of a 2-D input's non-zero elements, one (row, column) pair each in row-major order: a
    data-dependent output whose row count is a size tensor (output 1) the plugin writes."""

    def __init__(self, log, namespace=""):
        V3Base.__init__(self, "NonZero", 2, log, namespace)

    def clone(self):
        return NonZero(self.log, self.plugin_namespace)

    def get_output_data_types(self, input_types):
        return [trt.DataType.INT32, trt.DataType.INT64]

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        upper = expr_builder.operation(trt.DimensionOperation.PROD, inputs[0][0], inputs[0][1])
        opt = expr_builder.operation(trt.DimensionOperation.FLOOR_DIV, upper, expr_builder.constant(2))
        count = expr_builder.declare_size_tensor(1, opt, upper)
        return [trt.DimsExprs([count, expr_builder.constant(2)]), trt.DimsExprs(0)]

    def supports_format_combination(self, pos, in_out, num_inputs):
        wanted = [trt.DataType.FLOAT, trt.DataType.INT32, trt.DataType.INT64][pos]
        return in_out[pos].desc.format == trt.TensorFormat.LINEAR and in_out[pos].desc.type == wanted

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue output dims", tuple(output_desc[0].dims)))
        x = host_array(inputs[0], input_desc[0])
        found = np.argwhere(x != 0).astype(np.int32)
        rows = int(np.prod(input_desc[0].dims))  # the upper bound the output's memory holds
        indices = np.frombuffer((ctypes.c_int32 * (rows * 2)).from_address(outputs[0]), np.int32).reshape(rows, 2)
        indices[: len(found)] = found
        np.frombuffer((ctypes.c_int64 * 1).from_address(outputs[1]), np.int64)[0] = len(found)


class SingleCreator(trt.IPluginCreatorV3One):
    """A creator for the plugins above, which serialize no fields: `make(phase)` makes each."""

    def __init__(self, name, namespace, make):
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = name, "1", namespace
        self.field_names = trt.PluginFieldCollection([])
        self.make = make

    def create_plugin(self, name, fc, phase):
        return self.make(phase)
