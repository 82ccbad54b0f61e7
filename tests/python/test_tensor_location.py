"""ICudaEngine.get_tensor_location on the CPU backend: HOST for its I/O tensors, unless KILN_CPU_TENSOR_LOCATION is
`device` when the plan is loaded (for applications that give addresses only to DEVICE tensors, such as NVIDIA's
trtexec); the engine then still runs on host memory, and an unknown value fails the load."""

import os

import numpy as np
import pytest

import kiln.tensorrt as trt
from callback_classes import BIAS, WEIGHTS, build_mlp
from conftest import RecordingLogger
from onnx_models import mlp_reference


@pytest.fixture
def location_variable():
    old = os.environ.get("KILN_CPU_TENSOR_LOCATION")
    yield
    if old is None:
        os.environ.pop("KILN_CPU_TENSOR_LOCATION", None)
    else:
        os.environ["KILN_CPU_TENSOR_LOCATION"] = old


def load(logger):
    plan = build_mlp(logger)
    assert plan is not None, logger.errors()
    return trt.Runtime(logger).deserialize_cuda_engine(plan)


def test_cpu_io_is_on_the_host_unless_the_variable_says_device(location_variable):
    logger = RecordingLogger()
    os.environ.pop("KILN_CPU_TENSOR_LOCATION", None)
    engine = load(logger)
    assert engine.get_tensor_location("x") == trt.TensorLocation.HOST
    assert engine.get_tensor_location("y") == trt.TensorLocation.HOST

    os.environ["KILN_CPU_TENSOR_LOCATION"] = "device"
    engine = load(logger)
    if engine is None:  # a build of Kiln without CUDA has no device to report
        assert any("has no CUDA backend" in error for error in logger.errors()), logger.errors()
        pytest.skip("this build of Kiln has no CUDA backend")
    assert engine.get_tensor_location("x") == trt.TensorLocation.DEVICE
    assert engine.get_tensor_location("y") == trt.TensorLocation.DEVICE
    # Host memory (numpy's) is memory the host reaches, GPU or not.
    context = engine.create_execution_context()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)
    y = np.zeros((2, 5), np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.execute_v2([x.ctypes.data, y.ctypes.data]), logger.errors()
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)


def test_an_unknown_location_fails_the_load(location_variable):
    logger = RecordingLogger()
    os.environ["KILN_CPU_TENSOR_LOCATION"] = "everywhere"
    assert load(logger) is None
    assert any('KILN_CPU_TENSOR_LOCATION is "everywhere"' in error for error in logger.errors()), logger.errors()
