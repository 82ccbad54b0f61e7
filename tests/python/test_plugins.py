"""Kiln's plugin collection through the registry: a V2 plugin (CustomGeluPluginDynamic) and a V3 plugin
(TopkLastDim) in networks, built, serialized with the plan and run on the CPU backend."""

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import build_engine, run


@pytest.fixture(scope="module", autouse=True)
def collection():
    assert trt.init_libnvinfer_plugins(trt.Logger(), "")
    return trt.get_plugin_registry()


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def test_registry_lists_the_collection(collection):
    names = {(c.name, c.plugin_version) for c in collection.all_creators}
    assert ("CustomGeluPluginDynamic", "1") in names and ("TopkLastDim", "1") in names
    assert any(c.name == "CustomGeluPluginDynamic" for c in collection.plugin_creator_list)
    gelu = collection.get_plugin_creator("CustomGeluPluginDynamic", "1", "")
    assert isinstance(gelu, trt.IPluginCreator)
    assert "type_id" in [field.name for field in gelu.field_names]
    assert isinstance(collection.get_creator("TopkLastDim", "1"), trt.IPluginCreatorV3One)
    assert collection.get_creator("NoSuchPlugin", "1") is None


def test_gelu_v2_plugin_in_a_network(collection, logger):
    creator = collection.get_creator("CustomGeluPluginDynamic", "1", "")
    bias = np.array([0.5, -0.25, 0.0, 1.0], np.float32)
    fields = trt.PluginFieldCollection(
        [
            trt.PluginField("type_id", np.array([0], np.int32), trt.PluginFieldType.INT32),
            trt.PluginField("bias", bias, trt.PluginFieldType.FLOAT32),
        ]
    )
    plugin = creator.create_plugin("gelu", fields)
    assert plugin.plugin_type == "CustomGeluPluginDynamic" and plugin.num_outputs == 1

    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 4))
    layer = network.add_plugin_v2([x], plugin)
    del plugin  # the network keeps it alive: layer.plugin is that object, as in TensorRT
    assert layer.type == trt.LayerType.PLUGIN_V2 and layer.plugin.plugin_type == "CustomGeluPluginDynamic"
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))

    engine = build_engine(builder, network)
    xv = np.linspace(-3, 3, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(run(engine, {"x": xv})["y"], gelu_tanh(xv + bias), rtol=1e-5, atol=1e-6)


def test_topk_v3_plugin_in_a_network(collection, logger):
    creator = collection.get_creator("TopkLastDim", "1")
    fields = trt.PluginFieldCollection(
        [
            trt.PluginField(name, np.array([value], np.int32), trt.PluginFieldType.INT32)
            for name, value in (("type_id", 0), ("k", 2), ("is_largest", 1))
        ]
    )
    plugin = creator.create_plugin("topk", fields, trt.TensorRTPhase.BUILD)
    core = plugin.get_capability_interface(trt.PluginCapabilityType.CORE)
    assert core.plugin_name == "TopkLastDim"

    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (3, 5))
    layer = network.add_plugin_v3([x], [], plugin)
    assert isinstance(network.get_layer(0), trt.IPluginV3Layer) and layer.num_outputs == 2
    layer.get_output(0).name, layer.get_output(1).name = "values", "indices"
    network.mark_output(layer.get_output(0))
    network.mark_output(layer.get_output(1))

    engine = build_engine(builder, network)
    xv = np.array([[1, 5, 3, 2, 4], [0, -1, 7, 7, 2], [9, 8, 7, 6, 5]], np.float32)
    out = run(engine, {"x": xv})
    np.testing.assert_array_equal(out["values"], [[5, 4], [7, 7], [9, 8]])
    np.testing.assert_array_equal(out["indices"], [[1, 4], [2, 3], [0, 1]])


def test_register_and_deregister_a_creator(collection):
    creator = collection.get_creator("TopkLastDim", "1")
    assert not collection.register_creator(creator, "")  # taken: the collection registered it there
    assert collection.register_creator(creator, "py_test")
    assert collection.get_creator("TopkLastDim", "1", "py_test") is not None
    assert collection.deregister_creator(creator)  # leaves every namespace it was registered under
    assert collection.get_creator("TopkLastDim", "1") is None
    assert collection.get_creator("TopkLastDim", "1", "py_test") is None
    assert collection.register_creator(creator)  # back where the collection had it
    assert collection.get_creator("TopkLastDim", "1") is not None
