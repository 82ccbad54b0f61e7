"""Debug tensors through the Python API on the CPU backend: a tensor marked with mark_debug reaches the context's
IDebugListener with the values numpy computes for it, once its debug state is on."""

import ctypes

import numpy as np

import kiln.tensorrt as trt
from callback_classes import BIAS, WEIGHTS, parsed_network
from conftest import RecordingLogger, cpu_config
from onnx_models import mlp_reference


class CopyingListener(trt.IDebugListener):
    def __init__(self):
        trt.IDebugListener.__init__(self)
        self.received = {}

    def process_debug_tensor(self, addr, location, type, shape, name, stream):
        assert location == trt.TensorLocation.HOST and type == trt.DataType.FLOAT
        count = int(np.prod(tuple(shape)))
        values = np.ctypeslib.as_array((ctypes.c_float * count).from_address(addr))
        self.received[name] = values.reshape(tuple(shape)).copy()
        return True


def tensor_named(network, name):
    for i in range(network.num_layers):
        layer = network.get_layer(i)
        for o in range(layer.num_outputs):
            if layer.get_output(o).name == name:
                return layer.get_output(o)
    raise KeyError(name)


def test_a_marked_tensor_reaches_the_listener_with_its_values():
    logger = RecordingLogger()
    builder, network, _ = parsed_network(logger)
    relu = tensor_named(network, "r")
    assert network.mark_debug(relu) and network.is_debug_tensor(relu)
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine.is_debug_tensor("r") and not engine.is_debug_tensor("y")

    context = engine.create_execution_context()
    listener = CopyingListener()
    assert context.set_debug_listener(listener)
    x = np.linspace(-1, 1, 18, dtype=np.float32).reshape(3, 6)
    y = np.zeros((3, 5), np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.set_tensor_address("x", x.ctypes.data) and context.set_tensor_address("y", y.ctypes.data)
    assert context.execute_v2([x.ctypes.data, y.ctypes.data])
    assert listener.received == {}  # every state starts off

    assert context.set_tensor_debug_state("r", True) and context.get_debug_state("r")
    assert context.execute_v2([x.ctypes.data, y.ctypes.data])
    np.testing.assert_allclose(listener.received["r"], np.maximum(x @ WEIGHTS + BIAS, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)

    assert not context.unfused_tensors_debug_state
    context.unfused_tensors_debug_state = True
    assert context.unfused_tensors_debug_state
    assert not context.set_tensor_debug_state("y", True)
    assert any('"y" is not a debug tensor' in message for message in logger.errors())
