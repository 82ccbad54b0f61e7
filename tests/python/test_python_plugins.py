"""Plugins written in Python (trt.IPluginV3 with its capability classes, and trt.IPluginCreatorV3One) on Kiln's CPU
backend: in one network with a V2 plugin of Kiln's collection, built, serialized, loaded in a fresh Runtime (which
makes the runtime plugin through the Python creator with the serialized fields) and run in numpy; and the errors a
Python plugin that raises, or returns the wrong thing, gets."""

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import RecordingLogger, cpu_config
from python_plugins import (CircularPad, CircularPadCreator, circular_pad_reference, gelu_reference, pad_fields,
                            pad_then_gelu_network, registered_creator)

def pad_network(builder, plugin, shape=(2, 3)):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, shape)
    layer = network.add_plugin_v3([x], [], plugin)
    if layer is not None:
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
    return network, layer


def load_and_run(plan, logger, x, output_shape):
    """Loads the plan in a fresh Runtime and runs it on x; returns (ran, y)."""
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    y = np.zeros(output_shape, np.float32)
    assert context.set_input_shape("x", x.shape)
    context.set_tensor_address("x", x.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    return context.execute_async_v3(0), y


def test_creator_attributes_and_registry_lookup():
    creator = registered_creator()
    assert isinstance(creator, CircularPadCreator)  # the registry hands back the Python object itself
    assert (creator.name, creator.plugin_version) == ("CircularPad", "1")
    assert creator.plugin_namespace.startswith("py_test_")
    assert [field.name for field in creator.field_names] == ["pads", "scale"]
    names = {(c.name, c.plugin_namespace) for c in trt.get_plugin_registry().all_creators}
    assert ("CircularPad", creator.plugin_namespace) in names


def test_python_plugin_and_collection_plugin_in_one_network(logger):
    creator = registered_creator()
    plugin = creator.create_plugin("pad", pad_fields([1, 2], 0.5), trt.TensorRTPhase.BUILD)
    assert plugin.get_capability_interface(trt.PluginCapabilityType.CORE).plugin_name == "CircularPad"

    builder = trt.Builder(logger)
    network, padded = pad_then_gelu_network(builder, plugin, (2, 4))
    assert padded.plugin is plugin  # the layer keeps the caller's object, as TensorRT's does
    assert tuple(padded.get_output(0).shape) == (2, 7)  # get_output_shapes' expression: 4 + 1 + 2

    plan = builder.build_serialized_network(network, cpu_config(builder))
    assert plan is not None, logger.errors()
    del plugin, padded, network, builder
    xv = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    ran, y = load_and_run(bytes(plan), logger, xv, (2, 7))
    assert ran, logger.errors()

    np.testing.assert_allclose(y, gelu_reference(circular_pad_reference(xv, [1, 2], 0.5)), rtol=1e-5, atol=1e-6)
    assert ("enqueue", 0) in creator.log  # the CPU backend's stream is 0


def test_fields_are_serialized_and_read_back_at_runtime(logger):
    creator = registered_creator()
    plugin = creator.create_plugin("pad", pad_fields([2, 0], 3.0), trt.TensorRTPhase.BUILD)
    builder = trt.Builder(logger)
    network, _ = pad_network(builder, plugin)
    plan = builder.build_serialized_network(network, cpu_config(builder))
    assert plan is not None, logger.errors()

    xv = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    ran, y = load_and_run(plan, logger, xv, (2, 5))
    assert ran, logger.errors()
    np.testing.assert_array_equal(y, [[6, 9, 3, 6, 9], [15, 18, 12, 15, 18]])  # wrap by 2 on the left, times 3

    name, phase, fields = creator.created[-1]
    assert phase == trt.TensorRTPhase.RUNTIME and name != "pad"  # Kiln names the runtime plugin after the layer
    assert fields["pads"].dtype == np.int32 and fields["pads"].tolist() == [2, 0]
    assert fields["scale"].dtype == np.float32 and fields["scale"].tolist() == [3.0]
    # The runtime plugin was told its shapes before it ran.
    assert ("on_shape_change", (2, 3), (2, 5)) in creator.log


def build_pad_plan(plugin_class, logger):
    creator = registered_creator(plugin_class)
    plugin = creator.create_plugin("pad", pad_fields([1, 1], 1.0), trt.TensorRTPhase.BUILD)
    builder = trt.Builder(logger)
    network, layer = pad_network(builder, plugin)
    plan = builder.build_serialized_network(network, cpu_config(builder)) if layer is not None else None
    return creator, layer, plan


def plugin_errors(logger):
    return "\n".join(message for message in logger.errors() if "CircularPad" in message)


class RaisesInEnqueue(CircularPad):
    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        raise ValueError("enqueue exploded")


class RaisesInShapes(CircularPad):
    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        raise KeyError("no shapes today")


class LeavesShapeUnset(CircularPad):
    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        return [trt.DimsExprs(2)]


class LacksOnShapeChange(CircularPad):
    on_shape_change = None  # hides the parent's: the class does not implement it


def test_an_exception_in_enqueue_fails_the_run_naming_the_plugin(logger):
    _, _, plan = build_pad_plan(RaisesInEnqueue, logger)
    assert plan is not None, logger.errors()
    ran, _ = load_and_run(plan, logger, np.zeros((2, 3), np.float32), (2, 5))
    assert not ran
    errors = plugin_errors(logger)
    assert "plugin CircularPad (version 1" in errors and "enqueue" in errors
    assert "ValueError: enqueue exploded" in errors


@pytest.mark.parametrize(
    "plugin_class, expected",
    [
        (RaisesInShapes, "KeyError: 'no shapes today'"),
        (LeavesShapeUnset, "get_output_shapes left dimension 0 of output 0 unset"),
    ],
)
def test_a_failing_get_output_shapes_refuses_the_layer_naming_the_plugin(logger, plugin_class, expected):
    _, layer, _ = build_pad_plan(plugin_class, logger)
    assert layer is None
    errors = plugin_errors(logger)
    assert "plugin CircularPad (version 1" in errors and "getOutputShapes" in errors
    assert expected in errors


def test_a_missing_method_is_named(logger):
    _, _, plan = build_pad_plan(LacksOnShapeChange, logger)
    assert plan is None
    assert "LacksOnShapeChange does not implement on_shape_change" in plugin_errors(logger)


@pytest.mark.parametrize(
    "runtime_create, expected",
    [
        ("raise", "RuntimeError: no plugin at runtime"),
        ("wrong type", "create_plugin returned str, not an IPluginV3"),
    ],
)
def test_a_failing_runtime_create_plugin_fails_the_load_naming_the_plugin(logger, runtime_create, expected):
    creator, _, plan = build_pad_plan(CircularPad, logger)
    assert plan is not None, logger.errors()
    build_create = creator.create_plugin

    def create_plugin(name, fc, phase):
        if phase == trt.TensorRTPhase.RUNTIME:
            if runtime_create == "raise":
                raise RuntimeError("no plugin at runtime")
            return "not a plugin"
        return build_create(name, fc, phase)

    creator.create_plugin = create_plugin
    assert trt.Runtime(logger).deserialize_cuda_engine(plan) is None
    errors = plugin_errors(logger)
    assert "plugin CircularPad (version 1" in errors and "createPlugin" in errors
    assert expected in errors


def test_capabilities_on_separate_objects_and_attribute_checks(logger):
    class Identity(trt.IPluginV3OneCore):
        def __init__(self):
            trt.IPluginV3OneCore.__init__(self)
            self.plugin_name, self.plugin_version = "Split", "2"

    class SplitPlugin(trt.IPluginV3):
        """A plugin whose capabilities are other objects (a fresh one each time for the core)."""

        def __init__(self):
            trt.IPluginV3.__init__(self)
            self.runtime = CircularPad([0, 1], [2.0], trt.TensorRTPhase.BUILD, [])

        def get_capability_interface(self, type):
            return Identity() if type == trt.PluginCapabilityType.CORE else self.runtime

        def clone(self):
            return SplitPlugin()

    builder = trt.Builder(logger)
    network, layer = pad_network(builder, SplitPlugin())
    assert layer is not None, logger.errors()
    assert tuple(layer.get_output(0).shape) == (2, 4)

    class WrongCapability(SplitPlugin):
        def get_capability_interface(self, type):
            return 42

        def clone(self):
            return WrongCapability()

    _, layer = pad_network(builder, WrongCapability())
    assert layer is None
    assert any("get_capability_interface(CORE) returned int, not an IPluginV3OneCore" in e for e in logger.errors())

    # Attributes of plugins written in C++ are read-only, as in TensorRT.
    assert trt.init_libnvinfer_plugins(trt.Logger(), "")
    topk = trt.get_plugin_registry().get_creator("TopkLastDim", "1")
    with pytest.raises(AttributeError, match="read-only"):
        topk.name = "renamed"
    assert topk.name == "TopkLastDim"


def test_dims_exprs_and_tensor_descriptions():
    dims = trt.DimsExprs(3)
    assert len(dims) == 3 and dims[0] is None
    with pytest.raises(IndexError):
        dims[3]
    desc = trt.PluginTensorDesc()
    desc.dims, desc.type = (2, 5), trt.DataType.HALF
    assert desc.dims == (2, 5) and desc.type == trt.DataType.HALF
    dynamic = trt.DynamicPluginTensorDesc()
    dynamic.min, dynamic.max = (1, 2), (8, 2)
    assert (dynamic.min, dynamic.max) == ((1, 2), (8, 2))


def test_the_logger_fixture_is_fresh():
    # Guard for the tests above: errors are read from a logger of their own.
    assert RecordingLogger().errors() == []
