"""Plans through streams written in Python, on the CPU backend: Builder.build_serialized_network_to_stream with a
trt.IStreamWriter writes the plan build_serialized_network makes, and Runtime.deserialize_cuda_engine loads it
back through a trt.IStreamReader or trt.IStreamReaderV2, whose engine computes the MLP as numpy does. Writers and
readers that fail (short counts, exceptions, wrong types, seeks refused) fail the build or load with the reason
logged."""

import io

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


class FileReader(trt.IStreamReader):
    """Reads from a file object in the sizes Kiln asks for."""

    def __init__(self, data, fail=False, overfill=False):
        trt.IStreamReader.__init__(self)
        self.file = io.BytesIO(data)
        self.fail, self.overfill = fail, overfill

    def read(self, size):
        if self.fail:
            raise ValueError("corrupt medium")
        if self.overfill:
            return bytes(size + 1)  # more than asked for
        return self.file.read(size)


class SeekableReader(trt.IStreamReaderV2):
    """A seekable reader that gives at most `chunk` bytes per read (as a numpy array, any buffer will do)."""

    def __init__(self, data, chunk=1000, refuse_seek=False):
        trt.IStreamReaderV2.__init__(self)
        self.file = io.BytesIO(data)
        self.chunk, self.refuse_seek = chunk, refuse_seek
        self.streams = set()
        self.file.seek(17)  # Kiln seeks to the start itself

    def read(self, size, stream):
        self.streams.add(stream)
        return np.frombuffer(self.file.read(min(size, self.chunk)), np.uint8)

    def seek(self, offset, where):
        if self.refuse_seek:
            return False
        whence = {trt.SeekPosition.SET: 0, trt.SeekPosition.CUR: 1, trt.SeekPosition.END: 2}[where]
        self.file.seek(offset, whence)
        return True


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


def test_the_stream_writer_gets_the_plan_and_readers_load_it():
    logger = RecordingLogger()
    builder, network, config, _ = mlp_build(logger)
    writer = BytesWriter()
    assert builder.build_serialized_network_to_stream(network, config, writer), logger.errors()
    assert writer.calls >= 1 and len(writer.data) > 0
    plan = bytes(writer.data)

    runtime = trt.Runtime(logger)
    computes_the_mlp(runtime.deserialize_cuda_engine(FileReader(plan)))
    reader = SeekableReader(plan, chunk=999)
    computes_the_mlp(runtime.deserialize_cuda_engine(reader))
    assert reader.streams == {0}  # Kiln reads into host memory, on no stream
    computes_the_mlp(runtime.deserialize_cuda_engine(plan))  # the same bytes as a buffer
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


def test_readers_that_fail_fail_the_load_with_the_reason():
    logger = RecordingLogger()
    builder, network, config, _ = mlp_build(logger)
    plan = bytes(builder.build_serialized_network(network, config))
    runtime = trt.Runtime(logger)
    for reader, message in [
        (FileReader(plan, fail=True), "IStreamReader.read raised ValueError: corrupt medium"),
        (FileReader(plan, overfill=True), "bytes where"),
        (SeekableReader(plan, refuse_seek=True), "could not seek to the start of the plan"),
        (FileReader(plan[: len(plan) // 2]), "IRuntime::deserializeCudaEngine"),
    ]:
        logger.messages.clear()
        assert runtime.deserialize_cuda_engine(reader) is None
        assert any(message in error for error in logger.errors()), (message, logger.errors())


class NotAReader(trt.IStreamReaderV2):
    def __init__(self):
        trt.IStreamReaderV2.__init__(self)

    def seek(self, offset, where):
        return True


def test_a_reader_without_read_is_reported():
    logger = RecordingLogger()
    assert trt.Runtime(logger).deserialize_cuda_engine(NotAReader()) is None
    assert any("IStreamReaderV2.read" in error for error in logger.errors()), logger.errors()
