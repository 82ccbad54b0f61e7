"""trt.IGpuAllocator and trt.IGpuAsyncAllocator written in Python, on the CPU backend, whose "device" is the host:
Runtime.gpu_allocator gives each context its activation memory (host memory here, numpy arrays), the context runs
in it and gives it back when it goes; an allocator that fails makes create_execution_context return None with the
reason logged. Builder.gpu_allocator is taken and never asked on the CPU backend (a CPU build times nothing on a
device)."""

import gc

import numpy as np

import kiln.tensorrt as trt
from callback_classes import BIAS, WEIGHTS, build_mlp, parsed_network
from conftest import RecordingLogger, cpu_config
from onnx_models import mlp_reference


class NumpyAllocator(trt.IGpuAllocator):
    """Host memory from numpy arrays, kept by address until released."""

    def __init__(self, fail=None):
        trt.IGpuAllocator.__init__(self)
        self.live = {}
        self.allocations = []
        self.released = []
        self.fail = fail

    def allocate(self, size, alignment, flags):
        self.allocations.append((size, alignment, flags))
        if self.fail == "raise":
            raise MemoryError("no room")
        if self.fail == "none":
            return None
        array = np.full(size + alignment, 0xAB, np.uint8)
        address = -array.ctypes.data % alignment + array.ctypes.data  # the first aligned byte
        self.live[address] = array
        return address

    def deallocate(self, memory):
        self.released.append(memory)
        return self.live.pop(memory, None) is not None


class NumpyAsyncAllocator(trt.IGpuAsyncAllocator):
    def __init__(self):
        trt.IGpuAsyncAllocator.__init__(self)
        self.inner = NumpyAllocator()
        self.streams = []

    def allocate_async(self, size, alignment, flags, stream):
        self.streams.append(stream)
        return self.inner.allocate(size, alignment, flags)

    def deallocate_async(self, memory, stream):
        self.streams.append(stream)
        return self.inner.deallocate(memory)


def mlp_runs(context):
    x = np.linspace(-1, 1, 18, dtype=np.float32).reshape(3, 6)
    y = np.zeros((3, 5), np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.execute_v2([x.ctypes.data, y.ctypes.data])
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)


def engine_with(allocator, logger):
    plan = build_mlp(logger)
    assert plan is not None, logger.errors()
    runtime = trt.Runtime(logger)
    runtime.gpu_allocator = allocator
    del allocator  # the runtime keeps it alive
    return runtime.deserialize_cuda_engine(plan)


def test_contexts_take_their_memory_from_the_runtimes_allocator_and_give_it_back():
    logger = RecordingLogger()
    allocator = NumpyAllocator()
    engine = engine_with(allocator, logger)
    assert allocator.allocations == []
    context = engine.create_execution_context()
    assert context is not None, logger.errors()
    assert len(allocator.allocations) == 1
    size, alignment, flags = allocator.allocations[0]
    assert size >= engine.device_memory_size_v2 and alignment == 256 and flags == 0
    (address, array), = allocator.live.items()
    mlp_runs(context)
    offset = address - array.ctypes.data
    assert (array[offset : offset + size] != 0xAB).any()  # the activations were written there
    del context
    gc.collect()
    assert allocator.released == [address] and allocator.live == {}
    assert logger.errors() == []


def test_an_async_allocator_is_called_on_stream_0():
    logger = RecordingLogger()
    allocator = NumpyAsyncAllocator()
    engine = engine_with(allocator, logger)
    context = engine.create_execution_context()
    assert context is not None, logger.errors()
    mlp_runs(context)
    del context
    gc.collect()
    assert allocator.streams == [0, 0] and allocator.inner.live == {}
    assert len(allocator.inner.released) == 1


def test_an_allocator_that_fails_fails_the_context():
    for fail, message in [("raise", "IGpuAllocator.allocate raised MemoryError: no room"), ("none", "gave no memory")]:
        logger = RecordingLogger()
        allocator = NumpyAllocator(fail=fail)
        engine = engine_with(allocator, logger)
        assert engine.create_execution_context() is None
        assert any(message in error for error in logger.errors()), logger.errors()
        assert allocator.released == []


class Incomplete(trt.IGpuAllocator):
    def __init__(self):
        trt.IGpuAllocator.__init__(self)


def test_a_missing_method_is_reported_and_the_builders_allocator_is_never_asked_on_the_cpu():
    logger = RecordingLogger()
    engine = engine_with(Incomplete(), logger)
    assert engine.create_execution_context() is None
    assert any("IGpuAllocator.allocate" in error for error in logger.errors()), logger.errors()

    allocator = NumpyAllocator()
    builder, network, _ = parsed_network(logger)
    builder.gpu_allocator = allocator
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    assert builder.build_serialized_network(network, config) is not None, logger.errors()
    assert allocator.allocations == []
