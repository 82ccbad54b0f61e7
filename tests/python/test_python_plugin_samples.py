"""The flows of NVIDIA's TensorRT Python plugin samples, written as Kiln's own tests on the CPU backend: an
IPluginV2DynamicExt with an IPluginCreator through serialization and a fresh Runtime; plugin resources shared through
the registry."""

import gc

import numpy as np
import pytest
import kiln.tensorrt as trt
from conftest import cpu_config
from python_plugin_samples import (CircPadV2, ResourceScaleCreator, SharedCounter, circular_pad_reference,
                                   fresh_namespace, pads_field, registered_v2_creator)


def single_plugin_plan(logger, plugin, shape, version=2):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, shape)
    layer = network.add_plugin_v2([x], plugin) if version == 2 else network.add_plugin_v3([x], [], plugin)
    if layer is None:
        return None
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return builder.build_serialized_network(network, cpu_config(builder))


def run_plan(plan, logger, x, y_shape):
    """Loads the plan in a fresh Runtime and runs it once; returns (ran, y)."""
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    y = np.zeros(y_shape, np.float32)
    assert context.set_input_shape("x", x.shape)
    context.set_tensor_address("x", x.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    return context.execute_async_v3(0), y


def test_v2_dynamic_ext_plugin_builds_serializes_and_runs_in_a_fresh_runtime(logger):
    creator = registered_v2_creator()
    found = trt.get_plugin_registry().get_plugin_creator("CircPadV2", "1", creator.plugin_namespace)
    assert found is creator  # the registry hands back the Python object
    plugin = found.create_plugin("pad", pads_field([1, 2, 0, 1]))
    assert isinstance(plugin, CircPadV2) and plugin.num_outputs == 1 and plugin.plugin_type == "CircPadV2"

    plan = single_plugin_plan(logger, plugin, (2, 3, 4))
    assert plan is not None, logger.errors()
    assert "initialize" in creator.log  # the builder initializes its clone before serializing it
    del plugin
    gc.collect()

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5
    ran, y = run_plan(plan, logger, x, (2, 4, 7))
    assert ran, logger.errors()
    np.testing.assert_array_equal(y, circular_pad_reference(x, [1, 2, 0, 1]))

    # The runtime plugin came from deserialize_plugin with the JSON bytes serialize() returned.
    name, data = creator.deserialized[-1]
    assert isinstance(data, bytes) and data.decode() == '{"pads": [1, 2, 0, 1]}'
    assert ("enqueue", 0) in creator.log  # the CPU backend's stream is 0
    assert ("configure_plugin", (2, 3, 4)) in creator.log  # told the run's shapes before enqueue


def test_kiln_destroys_the_plugins_it_made(logger):
    creator = registered_v2_creator()
    plugin = creator.create_plugin("pad", pads_field([1, 1]))
    plan = single_plugin_plan(logger, plugin, (1, 3))
    assert plan is not None, logger.errors()
    destroyed_while_building = creator.log.count("destroy")
    assert destroyed_while_building >= 1  # the builder's clones
    assert creator.log.count("terminate") >= 1  # the initialized one terminated first
    ran, _ = run_plan(plan, logger, np.ones((1, 3), np.float32), (1, 5))
    assert ran, logger.errors()
    gc.collect()
    assert creator.log.count("destroy") > destroyed_while_building  # the engine's and the context's


class RaisesInEnqueue(CircPadV2):
    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        raise ValueError("enqueue exploded")


class WrongSerializationSize(CircPadV2):
    def get_serialization_size(self):
        return 3


def test_v2_errors_fail_cleanly_naming_the_plugin(logger):
    creator = registered_v2_creator(RaisesInEnqueue)
    plan = single_plugin_plan(logger, creator.create_plugin("pad", pads_field([1, 0])), (1, 2))
    assert plan is not None, logger.errors()
    ran, _ = run_plan(plan, logger, np.ones((1, 2), np.float32), (1, 3))
    assert not ran
    errors = "\n".join(logger.errors())
    assert "plugin CircPadV2 (version 1" in errors and "ValueError: enqueue exploded" in errors

    creator = registered_v2_creator(WrongSerializationSize)
    assert single_plugin_plan(logger, creator.create_plugin("pad", pads_field([1, 0])), (1, 2)) is None
    assert any("get_serialization_size promised 3" in e for e in logger.errors())


def test_a_creator_returning_something_else_fails_the_load(logger):
    creator = registered_v2_creator()
    plan = single_plugin_plan(logger, creator.create_plugin("pad", pads_field([1, 0])), (1, 2))
    assert plan is not None, logger.errors()
    creator.deserialize_plugin = lambda name, data: "not a plugin"
    assert trt.Runtime(logger).deserialize_cuda_engine(plan) is None
    errors = "\n".join(logger.errors())
    assert "deserialize_plugin returned str, not an IPluginV2DynamicExt written in Python" in errors


def test_plugin_resources_are_cloned_once_and_released_with_the_last_reference():
    registry = trt.get_plugin_registry()
    log = []
    key = fresh_namespace("py_resource")
    offered = SharedCounter(7.0, log)
    first = registry.acquire_plugin_resource(key, offered)
    assert isinstance(first, SharedCounter) and first is not offered and first.value == 7.0
    second = registry.acquire_plugin_resource(key, SharedCounter(9.0, log))
    assert second is first  # the registered clone; the second offer is not cloned
    assert log == [("clone", 7.0)]
    assert registry.release_plugin_resource(key) == 0
    assert log == [("clone", 7.0)] and not first.released
    assert registry.release_plugin_resource(key) == 0
    assert log == [("clone", 7.0), ("release", 7.0)] and first.released
    assert registry.release_plugin_resource(key) == -1  # nothing under the key any more


def test_a_resource_whose_clone_fails_is_not_registered():
    class FailingClone(trt.IPluginResource):
        def __init__(self):
            trt.IPluginResource.__init__(self)

        def clone(self):
            raise RuntimeError("no device today")

        def release(self):
            pass

    registry = trt.get_plugin_registry()
    key = fresh_namespace("py_resource")
    assert registry.acquire_plugin_resource(key, FailingClone()) is None
    assert registry.release_plugin_resource(key) == -1  # nothing was registered


def test_v3_plugin_shares_a_resource_between_contexts(logger):
    log = []
    namespace = fresh_namespace("py_resource_plugin")
    creator = ResourceScaleCreator(namespace, log)
    assert trt.get_plugin_registry().register_creator(creator, namespace)
    key = fresh_namespace("scale")
    plugin = creator.create_plugin(
        "scale",
        trt.PluginFieldCollection(
            [
                trt.PluginField("key", np.frombuffer(key.encode(), np.int8), trt.PluginFieldType.CHAR),
                trt.PluginField("value", np.array([2.5], np.float32), trt.PluginFieldType.FLOAT32),
            ]
        ),
        trt.TensorRTPhase.BUILD,
    )
    plan = single_plugin_plan(logger, plugin, (2, 2), version=3)
    assert plan is not None, logger.errors()

    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    contexts = [engine.create_execution_context() for _ in range(2)]
    assert log.count(("clone", 2.5)) == 1  # two contexts, one resource
    x = np.array([[1, -2], [3, 4]], np.float32)
    for context in contexts:
        y = np.zeros_like(x)
        context.set_tensor_address("x", x.ctypes.data)
        context.set_tensor_address("y", y.ctypes.data)
        assert context.execute_async_v3(0), logger.errors()
        np.testing.assert_array_equal(y, x * 2.5)
    del contexts, context, engine
    gc.collect()
    # Each context's plugin released its reference; the last release freed the resource.
    assert log.count(("released by plugin", 0)) == 2
    assert log.count(("release", 2.5)) == 1
    assert trt.get_plugin_registry().release_plugin_resource(key) == -1


def test_v2_plugin_through_the_onnx_parser_as_the_samples_build_it(logger):
    # The circ_pad samples write a one-node ONNX model whose op is the plugin's name and whose attributes are its
    # fields; the parser's plugin fallback makes the plugin through the Python creator.
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    creator = registered_v2_creator()
    node = helper.make_node("CircPadV2", ["x"], ["y"], name="pad", pads=[2, 1],
                            plugin_namespace=creator.plugin_namespace)
    graph = helper.make_graph([node], "circ_pad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])

    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(model.SerializeToString()), [parser.get_error(i).desc() for i in range(parser.num_errors)]
    plan = builder.build_serialized_network(network, cpu_config(builder))
    assert plan is not None, logger.errors()
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    ran, y = run_plan(plan, logger, x, (2, 6))
    assert ran, logger.errors()
    np.testing.assert_array_equal(y, [[2, 3, 1, 2, 3, 1], [5, 6, 4, 5, 6, 4]])
