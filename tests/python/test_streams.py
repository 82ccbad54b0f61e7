"""Plans through a stream written in Python, on the CPU backend: Builder.build_serialized_network_to_stream with a
trt.IStreamWriter writes the plan build_serialized_network makes, which loads and computes the MLP as numpy does.
Writers that fail (short counts, exceptions, wrong types) fail the build with the reason logged."""

import numpy as np

import kiln.tensorrt as trt
from callback_classes import BIAS, WEIGHTS, parsed_network
from conftest import RecordingLogger, cpu_config
from onnx_models import mlp_reference


class BytesWriter(trt.IStreamWriter):
    """Collects what Kiln writes; `short` makes it claim one byte fewer, `fail` raise, `wrong` return text."""

    def __init__(self, short=False, fail=False, wrong=False):
        trt.IStreamWriter.__init__(self)
        self.data = bytearray()
        self.calls = 0
        self.short, self.fail, self.wrong = short, fail, wrong

    def write(self, data):
        self.calls += 1
        if self.fail:
            raise OSError("disk full")
        if self.wrong:
            return "all of it"
        self.data += data
        return len(data) - 1 if self.short else len(data)


def mlp_build(logger):
    builder, network, parser = parsed_network(logger)
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    return builder, network, config, parser


def computes_the_mlp(engine):
    assert engine is not None
    context = engine.create_execution_context()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)
    y = np.zeros((2, 5), np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.execute_v2([x.ctypes.data, y.ctypes.data])
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)


def test_the_stream_writer_gets_the_plan():
    logger = RecordingLogger()
    builder, network, config, _ = mlp_build(logger)
    writer = BytesWriter()
    assert builder.build_serialized_network_to_stream(network, config, writer), logger.errors()
    assert writer.calls >= 1 and len(writer.data) > 0
    computes_the_mlp(trt.Runtime(logger).deserialize_cuda_engine(bytes(writer.data)))
    assert logger.errors() == []


def test_a_writer_that_fails_fails_the_build_with_the_reason():
    for writer, message in [
        (BytesWriter(short=True), "the stream writer took"),
        (BytesWriter(fail=True), "IStreamWriter.write raised OSError: disk full"),
        (BytesWriter(wrong=True), "the byte count must be an int, not str"),
    ]:
        logger = RecordingLogger()
        builder, network, config, _ = mlp_build(logger)
        assert builder.build_serialized_network_to_stream(network, config, writer) is False
        assert any(message in error for error in logger.errors()), logger.errors()
