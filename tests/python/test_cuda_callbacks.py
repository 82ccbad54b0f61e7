"""A convolution network built on Kiln's CUDA backend from Python the way Polygraphy's ``run --trt`` builds and runs
it, without Polygraphy: a Python logger taking every message, a timing cache the script drops before building, a
progress monitor, and an output allocator giving torch memory. The zoo's EfficientNet is the model Polygraphy's run
was first tried on: the build times its convolutions with cuDNN (entries in the timing cache), and its logits are
compared with ONNX Runtime's (expected_0.npy). Skipped without torch, a usable GPU, or Kiln's CUDA backend."""

import gc
import pathlib
import weakref

import numpy as np
import pytest

import kiln
import kiln.tensorrt as trt
from callback_classes import Monitor
from conftest import RecordingLogger

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU that torch can use", allow_module_level=True)
if not kiln.backend_available(kiln.Backend.CUDA):
    pytest.skip("Kiln was built without its CUDA backend, or it cannot run here", allow_module_level=True)

MODEL = pathlib.Path(__file__).parents[1] / "models" / "efficientnet"


class TorchOutputAllocator(trt.IOutputAllocator):
    """Polygraphy's OutputAllocator with torch: device bytes for each output, grown when asked for more."""

    def __init__(self):
        trt.IOutputAllocator.__init__(self)
        self.buffers = {}
        self.shapes = {}
        self.streams = []

    def reallocate_output(self, tensor_name, memory, size, alignment):
        buffer = self.buffers.get(tensor_name)
        if buffer is None or buffer.numel() < size:
            buffer = torch.empty(max(size, 1), dtype=torch.uint8, device="cuda")
            self.buffers[tensor_name] = buffer
        return buffer.data_ptr()

    def reallocate_output_async(self, tensor_name, memory, size, alignment, stream):
        self.streams.append(stream)
        return self.reallocate_output(tensor_name, memory, size, alignment)

    def notify_shape(self, tensor_name, shape):
        self.shapes[tensor_name] = tuple(shape)


def build(logger, cache_bytes, monitor):
    """Polygraphy's CreateConfig and EngineBytesFromNetwork: returns (plan, the timing cache's bytes after the build).
    The cache and the monitor are referenced only by the config while it builds."""
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse_from_file(str(MODEL / "model.onnx")), logger.errors()
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("image", (1, 3, 64, 64), (1, 3, 64, 64), (1, 3, 64, 64))
    config.add_optimization_profile(profile)
    config.clear_flag(trt.BuilderFlag.TF32)
    config.profiling_verbosity = trt.ProfilingVerbosity.DETAILED
    assert config.set_timing_cache(config.create_timing_cache(cache_bytes), ignore_mismatch=False)
    config.progress_monitor = monitor
    gc.collect()
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    return plan, bytes(config.get_timing_cache().serialize())


def scaled_error(actual, expected):
    return float(np.abs(actual - expected).max() / np.abs(expected).max())


def test_efficientnet_built_with_python_callbacks_runs_on_torch_memory():
    logger = RecordingLogger()  # as Polygraphy's logger, Kiln calls it for every message, verbose ones too
    monitor = Monitor()
    watched = weakref.ref(monitor)
    empty = bytes(trt.Builder(logger).create_builder_config().create_timing_cache(b"").serialize())
    plan, cache = build(logger, b"", monitor)
    assert len(cache) > len(empty), "the build timed convolutions into the cache"
    assert ("finish", "Building plan") in monitor.events
    del monitor
    gc.collect()
    assert watched() is None, "the config released the monitor with itself"
    _, cache_again = build(logger, cache, Monitor())
    assert cache_again == cache, "a second build finds every timing in the cache, adding none"

    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    context = engine.create_execution_context()
    allocator = TorchOutputAllocator()
    assert context.set_all_tensors_debug_state(True) and context.set_debug_listener(trt.IDebugListener())
    assert context.set_output_allocator("logits", allocator)
    image = torch.from_numpy(np.load(MODEL / "input_0.npy")).cuda()
    assert context.set_input_shape("image", tuple(image.shape))
    assert context.set_tensor_address("image", image.data_ptr())
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    assert context.execute_async_v3(stream.cuda_stream), logger.errors()
    stream.synchronize()

    assert allocator.shapes == {"logits": (1, 10)} and allocator.streams == [stream.cuda_stream]
    logits = allocator.buffers["logits"][:40].view(torch.float32).reshape(1, 10).cpu().numpy()
    expected = np.load(MODEL / "expected_0.npy")
    assert scaled_error(logits, expected) <= 1e-3, (logits, expected)
    assert not logger.errors()
