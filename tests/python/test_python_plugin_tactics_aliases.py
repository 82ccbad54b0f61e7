"""Multi-tactic plugins (the builder times each tactic and sets the fastest, which the runtime plugin gets before it
runs), aliased-I/O plugins (IPluginV3OneBuildV2 with PreviewFeature.ALIASED_PLUGIN_IO_10_03) and a data-dependent
plugin output, as NVIDIA's multi-tactic, aliased-I/O and non-zero plugin samples use them, on the CPU backend."""

import json

import numpy as np
import pytest

import kiln.tensorrt as trt
from callback_classes import HostOutputAllocator
from conftest import cpu_config
from python_plugin_samples import (MultiTacticPad, MultiTacticPadCreator, NonZero, ScatterAdd, SingleCreator,
                                   fresh_namespace)


def register(creator):
    assert trt.get_plugin_registry().register_creator(creator, creator.plugin_namespace)
    return creator


@pytest.mark.parametrize("slow_tactic, fast_tactic", [(1, 2), (2, 1)])
def test_the_fastest_tactic_is_chosen_and_set_before_the_runtime_plugin_runs(logger, slow_tactic, fast_tactic):
    log = []
    creator = register(MultiTacticPadCreator(fresh_namespace("py_tactics"), log))
    plugin = MultiTacticPad(slow_tactic, trt.TensorRTPhase.BUILD, log, creator.plugin_namespace)
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    layer = network.add_plugin_v3([x], [], plugin)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    plan = builder.build_serialized_network(network, cpu_config(builder))
    assert plan is not None, logger.errors()

    build = trt.TensorRTPhase.BUILD
    assert ("enqueue", build, 1) in log and ("enqueue", build, 2) in log  # both timed
    assert log[-1] == ("set_tactic", build, fast_tactic)  # the fastest set last, before serializing

    del log[:]
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    # The plan records the tactic; the inspector shows it as TensorRT writes tactic values.
    layer = json.loads(engine.create_engine_inspector().get_layer_information(0, trt.LayerInformationFormat.JSON))
    assert layer["TacticValue"] == f"0x{fast_tactic:016x}"
    context = engine.create_execution_context()
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.zeros((2, 5), np.float32)
    context.set_tensor_address("x", xv.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    assert context.execute_async_v3(0), logger.errors()
    np.testing.assert_array_equal(y, [[2, 0, 1, 2, 0], [5, 3, 4, 5, 3]])
    runtime = trt.TensorRTPhase.RUNTIME
    assert ("set_tactic", runtime, fast_tactic) in log
    # The tactic arrives before the plugin hears of its shapes, and it runs with it.
    assert log.index(("set_tactic", runtime, fast_tactic)) < log.index(("on_shape_change", runtime, fast_tactic))
    assert ("enqueue", runtime, fast_tactic) in log


@pytest.mark.parametrize(
    "tactics, expected", [([3, 0], "tactic 0, which is reserved for the default"), ([4, 5, 4], "tactic 4 twice")]
)
def test_invalid_tactics_fail_the_build_naming_the_plugin(logger, tactics, expected):
    class ZeroTactic(MultiTacticPad):
        def get_valid_tactics(self):
            return tactics

        def clone(self):
            return ZeroTactic(self.slow_tactic, self.phase, self.log)

    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    layer = network.add_plugin_v3([x], [], ZeroTactic(1, trt.TensorRTPhase.BUILD, []))
    network.mark_output(layer.get_output(0))
    assert builder.build_serialized_network(network, cpu_config(builder)) is None
    assert any("MultiTacticPad" in e and expected in e for e in logger.errors())


def scatter_network(builder, plugin):
    """x (4, 1), src (6,), idx (6,) int64 -> ScatterAdd -> y (its aliased output), counts; x is also read by an
    identity after the plugin ("x_after"), which must see x as the application gave it."""
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4, 1))
    src = network.add_input("src", trt.float32, (6,))
    idx = network.add_input("idx", trt.int64, (6,))
    layer = network.add_plugin_v3([x, src, idx], [], plugin)
    if layer is None:
        return network
    layer.get_output(0).name = "y"
    layer.get_output(1).name = "counts"
    after = network.add_identity(x)
    after.get_output(0).name = "x_after"
    for tensor in (layer.get_output(0), layer.get_output(1), after.get_output(0)):
        network.mark_output(tensor)
    return network


def run_scatter(plan, logger):
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    arrays = {
        "x": np.array([[10], [20], [30], [40]], np.float32),
        "src": np.array([1, 2, 3, 4, 5, 6], np.float32),
        "idx": np.array([1, 2, 2, 4, 1, 3], np.int64),
        "y": np.zeros((4, 1), np.float32),
        "counts": np.full((4, 1), -1, np.int64),
        "x_after": np.zeros((4, 1), np.float32),
    }
    for name, array in arrays.items():
        context.set_tensor_address(name, array.ctypes.data)
    assert context.execute_async_v3(0), logger.errors()
    return arrays


def aliased_config(builder, enable):
    config = cpu_config(builder)
    assert not config.get_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03)
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, enable)
    assert config.get_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03) == enable
    return config


def test_an_aliased_output_runs_in_place_in_its_inputs_memory(logger):
    log = []
    creator = register(SingleCreator("ScatterAdd", fresh_namespace("py_alias"), lambda phase: ScatterAdd(log)))
    builder = trt.Builder(logger)
    plugin = ScatterAdd(log, namespace=creator.plugin_namespace)
    plan = builder.build_serialized_network(scatter_network(builder, plugin), aliased_config(builder, True))
    assert plan is not None, logger.errors()
    assert ("get_aliased_input", 0) in log and ("get_aliased_input", 1) in log

    arrays = run_scatter(plan, logger)
    assert ("same memory", True) in log  # the plugin got one address for x and y
    np.testing.assert_array_equal(arrays["y"], [[16], [25], [36], [44]])
    np.testing.assert_array_equal(arrays["counts"], [[2], [2], [1], [1]])
    # x itself is as the application gave it, for the layer that reads it after the plugin and for the application.
    np.testing.assert_array_equal(arrays["x_after"], [[10], [20], [30], [40]])
    np.testing.assert_array_equal(arrays["x"], [[10], [20], [30], [40]])


def test_without_the_preview_feature_outputs_are_not_aliased(logger):
    log = []
    creator = register(SingleCreator("ScatterAdd", fresh_namespace("py_alias"), lambda phase: ScatterAdd(log)))
    builder = trt.Builder(logger)
    plugin = ScatterAdd(log, namespace=creator.plugin_namespace)
    plan = builder.build_serialized_network(scatter_network(builder, plugin), aliased_config(builder, False))
    assert plan is not None, logger.errors()
    assert not any(entry[0] == "get_aliased_input" for entry in log if isinstance(entry, tuple))
    run_scatter(plan, logger)
    assert ("same memory", False) in log


@pytest.mark.parametrize(
    "aliased_to, expected",
    [
        (2, "getAliasedInput(0) returned 2, but the output is FLOAT/LINEAR and the input INT64/LINEAR"),
        (3, "getAliasedInput(0) returned 3, which is not one of its 3 inputs"),
        (-2, "getAliasedInput(0) returned -2, which is not one of its 3 inputs"),
    ],
)
def test_a_wrong_alias_fails_the_build_naming_the_plugin(logger, aliased_to, expected):
    builder = trt.Builder(logger)
    plugin = ScatterAdd([], aliased_to=aliased_to)
    assert builder.build_serialized_network(scatter_network(builder, plugin), aliased_config(builder, True)) is None
    errors = "\n".join(logger.errors())
    assert "plugin ScatterAdd (version 1" in errors and expected in errors


def test_a_data_dependent_plugin_output_reaches_the_output_allocator(logger):
    log = []
    creator = register(SingleCreator("NonZero", fresh_namespace("py_nonzero"), lambda phase: NonZero(log)))
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (3, 4))
    layer = network.add_plugin_v3([x], [], NonZero(log, creator.plugin_namespace))
    assert layer is not None, logger.errors()
    layer.get_output(0).name = "indices"
    network.mark_output(layer.get_output(0))
    plan = builder.build_serialized_network(network, cpu_config(builder))
    assert plan is not None, logger.errors()

    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    context = engine.create_execution_context()
    xv = np.array([[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 4]], np.float32)
    context.set_tensor_address("x", xv.ctypes.data)
    allocator = HostOutputAllocator()
    assert context.set_output_allocator("indices", allocator)
    assert context.execute_async_v3(0), logger.errors()
    assert allocator.shapes["indices"] == (4, 2)
    got = np.frombuffer(allocator.buffers["indices"], np.int32)[:8].reshape(4, 2)
    np.testing.assert_array_equal(got, np.transpose(np.nonzero(xv)))
