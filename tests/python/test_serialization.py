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
