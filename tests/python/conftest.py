"""What the Python API's tests share: a logger that records what Kiln says, and building and running an engine on
Kiln's CPU backend with numpy arrays as the tensors' memory."""

import numpy as np
import pytest

import kiln
import kiln.tensorrt as trt


class RecordingLogger(trt.ILogger):
    """Keeps every message, so that tests can check what Kiln reported."""

    def __init__(self):
        trt.ILogger.__init__(self)
        self.messages = []

    def log(self, severity, msg):
        self.messages.append((severity, msg))

    def errors(self):
        return [msg for severity, msg in self.messages if severity <= trt.ILogger.ERROR]


@pytest.fixture
def logger():
    return RecordingLogger()


def cpu_config(builder):
    """A builder config for Kiln's CPU backend, where tensor addresses are host memory (numpy arrays)."""
    config = builder.create_builder_config()
    config.kiln_backend = kiln.Backend.CPU
    return config


def build_engine(builder, network, config=None, logger=None):
    """Builds and loads the network's engine in a fresh runtime."""
    plan = builder.build_serialized_network(network, config or cpu_config(builder))
    assert plan is not None, "the build failed"
    runtime = trt.Runtime(logger or trt.Logger())
    engine = runtime.deserialize_cuda_engine(plan)
    assert engine is not None
    return engine


def run(engine, inputs, context=None):
    """Runs the engine on numpy inputs (by tensor name); returns its outputs by name."""
    context = context or engine.create_execution_context()
    for name, array in inputs.items():
        assert context.set_input_shape(name, array.shape)
    keep = []
    outputs = {}
    for index in range(engine.num_io_tensors):
        name = engine.get_tensor_name(index)
        if engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
            array = np.ascontiguousarray(inputs[name], dtype=trt.nptype(engine.get_tensor_dtype(name)))
            keep.append(array)
        else:
            shape = context.get_tensor_shape(name)
            array = np.empty(shape, dtype=trt.nptype(engine.get_tensor_dtype(name)))
            outputs[name] = array
        assert context.set_tensor_address(name, array.ctypes.data)
    assert context.execute_async_v3(0)
    return outputs
