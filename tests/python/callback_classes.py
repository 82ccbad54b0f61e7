"""Python subclasses of the interfaces Kiln calls back (progress monitor, output allocator, debug listener, error
recorder, profiler) that record their calls, and a small ONNX engine to give them to, on Kiln's CPU backend. Each can
be told to raise, so that tests see how a failing callback is reported."""

import numpy as np

import kiln.tensorrt as trt
from conftest import cpu_config
from onnx_models import mlp_model

RNG = np.random.default_rng(17)
WEIGHTS = RNG.standard_normal((6, 5)).astype(np.float32)
BIAS = RNG.standard_normal(5).astype(np.float32)


class Monitor(trt.IProgressMonitor):
    """Records the phases and steps; False from step_complete once `cancel_at` is reached; raises in `raise_in`."""

    def __init__(self, cancel_at=None, raise_in=None):
        trt.IProgressMonitor.__init__(self)
        self.events = []
        self.cancel_at = cancel_at
        self.raise_in = raise_in

    def _maybe_raise(self, method):
        if self.raise_in == method:
            raise ValueError("monitor exploded")

    def phase_start(self, phase_name, parent_phase, num_steps):
        self.events.append(("start", phase_name, parent_phase, num_steps))
        self._maybe_raise("phase_start")

    def step_complete(self, phase_name, step):
        self.events.append(("step", phase_name, step))
        self._maybe_raise("step_complete")
        return self.cancel_at is None or step < self.cancel_at

    def phase_finish(self, phase_name):
        self.events.append(("finish", phase_name))


class HostOutputAllocator(trt.IOutputAllocator):
    """Gives outputs numpy memory (Kiln's CPU backend takes host addresses), as Polygraphy's allocator gives device
    memory."""

    def __init__(self, fail=False):
        trt.IOutputAllocator.__init__(self)
        self.buffers = {}
        self.shapes = {}
        self.calls = []
        self.fail = fail

    def reallocate_output(self, tensor_name, memory, size, alignment):
        self.calls.append((tensor_name, size, alignment))
        if self.fail:
            raise MemoryError("no memory today")
        buffer = self.buffers.get(tensor_name)
        if buffer is None or buffer.nbytes < size:
            buffer = np.zeros(max(size, 1), np.uint8)
            self.buffers[tensor_name] = buffer
        return buffer.ctypes.data

    def notify_shape(self, tensor_name, shape):
        self.shapes[tensor_name] = tuple(shape)


class Listener(trt.IDebugListener):
    def __init__(self):
        trt.IDebugListener.__init__(self)

    def process_debug_tensor(self, addr, location, type, shape, name, stream):
        raise AssertionError("the networks of these tests mark no debug tensor")


class Recorder(trt.IErrorRecorder):
    """Keeps (code, description) pairs; raises from report_error when told to."""

    def __init__(self, fail=False):
        trt.IErrorRecorder.__init__(self)
        self.errors = []
        self.fail = fail

    def num_errors(self):
        return len(self.errors)

    def get_error_code(self, index):
        return self.errors[index][0]

    def get_error_desc(self, index):
        return self.errors[index][1]

    def has_overflowed(self):
        return False

    def clear(self):
        self.errors.clear()

    def report_error(self, val, desc):
        if self.fail:
            raise RuntimeError("recorder exploded")
        self.errors.append((val, desc))
        return True


class Profiler(trt.IProfiler):
    def __init__(self, fail=False):
        trt.IProfiler.__init__(self)
        self.times = []
        self.fail = fail

    def report_layer_time(self, layer_name, ms):
        if self.fail:
            raise KeyError(layer_name)
        self.times.append((layer_name, ms))


def parsed_network(logger):
    """(builder, network, parser) for mlp_model(WEIGHTS, BIAS): x [batch, 6] -> y [batch, 5]."""
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    trt.init_libnvinfer_plugins(logger, "")
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(mlp_model(WEIGHTS, BIAS).SerializeToString()), logger.errors()
    return builder, network, parser


def build_mlp(logger, config_hook=None):
    """The MLP's plan for batches 1 to 4 (None if the build fails); config_hook(config) may change the config."""
    builder, network, parser = parsed_network(logger)
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    if config_hook is not None:
        config_hook(config)
    return builder.build_serialized_network(network, config)


def engine_of(logger):
    plan = build_mlp(logger)
    assert plan is not None, logger.errors()
    return trt.Runtime(logger).deserialize_cuda_engine(plan)


def ready_context(logger, batch=2):
    """A context of the MLP's engine with x (ones) bound for `batch` rows; returns (context, x)."""
    context = engine_of(logger).create_execution_context()
    x = np.ones((batch, 6), np.float32)
    assert context.set_input_shape("x", x.shape) and context.set_tensor_address("x", x.ctypes.data)
    return context, x
