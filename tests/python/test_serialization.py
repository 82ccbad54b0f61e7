"""A plan serialized by the builder and by an engine, saved, loaded in a fresh Runtime, and run."""

import numpy as np

import kiln.tensorrt as trt
from conftest import cpu_config, run


def build_plan(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    clip = network.add_activation(x, trt.ActivationType.CLIP)
    clip.alpha, clip.beta = -0.5, 0.5
    network.mark_output(clip.get_output(0))
    return builder.build_serialized_network(network, cpu_config(builder))


def test_plan_round_trip(tmp_path, logger):
    plan = build_plan(logger)
    assert isinstance(plan, trt.IHostMemory)
    assert plan.nbytes == len(bytes(plan)) > 0 and plan.dtype == trt.uint8
    path = tmp_path / "clip.plan"
    with open(path, "wb") as f:
        f.write(plan)
    del plan

    engine = trt.Runtime(trt.Logger()).deserialize_cuda_engine(path.read_bytes())
    assert engine.num_io_tensors == 2 and engine[0] == "x" and engine[-1] == engine.get_tensor_name(1)
    assert engine.get_tensor_mode("x") == trt.TensorIOMode.INPUT
    assert engine.get_tensor_dtype("x") == trt.float32 and engine.get_tensor_shape("x") == (2, 3)

    # The engine serializes itself too; a second fresh runtime loads that copy.
    again = trt.Runtime(trt.Logger()).deserialize_cuda_engine(engine.serialize())
    x = np.array([[-2, -0.25, 0], [0.25, 1, 3]], np.float32)
    for loaded in (engine, again):
        out = run(loaded, {"x": x})[loaded.get_tensor_name(1)]
        np.testing.assert_array_equal(out, np.clip(x, -0.5, 0.5))


def test_execute_v2_and_inspector(logger):
    engine = trt.Runtime(logger).deserialize_cuda_engine(build_plan(logger))
    context = engine.create_execution_context()
    x = np.full((2, 3), 2.0, np.float32)
    y = np.empty((2, 3), np.float32)
    assert context.execute_v2([x.ctypes.data, y.ctypes.data])
    np.testing.assert_array_equal(y, 0.5)
    assert context.get_tensor_address("x") == x.ctypes.data
    inspector = engine.create_engine_inspector()
    assert "Layers" in inspector.get_engine_information(trt.LayerInformationFormat.JSON)


def clip_network(builder):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    clip = network.add_activation(x, trt.ActivationType.CLIP)
    clip.alpha, clip.beta = -0.5, 0.5
    network.mark_output(clip.get_output(0))
    return network


def test_build_engine_with_config_and_serialize_with_config(logger):
    builder = trt.Builder(logger)
    network = clip_network(builder)
    engine = builder.build_engine_with_config(network, cpu_config(builder))
    assert isinstance(engine, trt.ICudaEngine)
    del builder, network  # the engine keeps what it needs
    x = np.array([[-2, -0.25, 0], [0.25, 1, 3]], np.float32)
    np.testing.assert_array_equal(run(engine, {"x": x})[engine.get_tensor_name(1)], np.clip(x, -0.5, 0.5))

    config = engine.create_serialization_config()
    assert config.flags == 0 and not config.get_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)
    assert config.set_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)
    assert config.flags == 1 << int(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME)
    plan = engine.serialize_with_config(config)
    again = trt.Runtime(trt.Logger()).deserialize_cuda_engine(plan)
    np.testing.assert_array_equal(run(again, {"x": x})[again.get_tensor_name(1)], np.clip(x, -0.5, 0.5))

    # Kiln writes no weight-stripped plans: asked for one, it gives None and says why.
    assert config.clear_flag(trt.SerializationFlag.EXCLUDE_LEAN_RUNTIME) and config.flags == 0
    config.flags = 1 << int(trt.SerializationFlag.EXCLUDE_WEIGHTS)
    assert engine.serialize_with_config(config) is None


def test_build_engine_with_config_gives_none_for_a_network_that_does_not_build(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    network.add_input("x", trt.float32, (2, 3))  # no output: nothing to build
    assert builder.build_engine_with_config(network, cpu_config(builder)) is None
