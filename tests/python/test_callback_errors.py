"""Callbacks written in Python that raise, return the wrong thing or lack a method: Kiln never sees the Python
exception. The logger gets an error naming the interface, the method and the exception, and the call Kiln was making
fails as TensorRT's would (a cancelled build gives None, a run without output memory gives False); where the C++
method returns nothing (a profiler, a listener), only the error is logged and the call goes on."""

import gc

import numpy as np
import pytest

import kiln.tensorrt as trt
from callback_classes import (BIAS, WEIGHTS, HostOutputAllocator, Monitor, Profiler, Recorder, build_mlp,
                              ready_context)
from conftest import RecordingLogger
from onnx_models import mlp_reference


def logged(logger, text):
    return any(text in error for error in logger.errors())


def test_a_progress_monitor_cancels_the_build():
    logger = RecordingLogger()
    cancelling = Monitor(cancel_at=2)
    assert build_mlp(logger, lambda config: setattr(config, "progress_monitor", cancelling)) is None
    assert [event for event in cancelling.events if event[0] == "step"][-1] == ("step", "Building plan", 2)
    assert cancelling.events[-1] == ("finish", "Building plan")
    assert logged(logger, "cancelled by the progress monitor"), logger.errors()


@pytest.mark.parametrize("method", ["phase_start", "step_complete"])
def test_a_progress_monitor_that_raises_cancels_the_build(method):
    logger = RecordingLogger()
    raising = Monitor(raise_in=method)
    assert build_mlp(logger, lambda config: setattr(config, "progress_monitor", raising)) is None
    assert logged(logger, f"IProgressMonitor.{method} raised ValueError: monitor exploded"), logger.errors()
    assert ("finish", "Building plan") in raising.events

    # The same monitor no longer raising: its earlier failure does not cancel the next build.
    raising.raise_in = None
    assert build_mlp(RecordingLogger(), lambda config: setattr(config, "progress_monitor", raising)) is not None


def test_an_output_allocator_that_raises_fails_the_run_naming_it():
    logger = RecordingLogger()
    context, _ = ready_context(logger)
    assert context.set_output_allocator("y", HostOutputAllocator(fail=True))
    assert not context.execute_async_v3(0)
    assert logged(logger, "IOutputAllocator.reallocate_output raised MemoryError: no memory today"), logger.errors()
    assert not context.set_output_allocator("x", HostOutputAllocator()), "x is an input"


def test_an_output_allocator_returning_no_address_fails_the_run():
    class Returning(HostOutputAllocator):
        def __init__(self, value):
            HostOutputAllocator.__init__(self)
            self.value = value

        def reallocate_output(self, tensor_name, memory, size, alignment):
            return self.value

    wrong_type = "IOutputAllocator.reallocate_output returned a value of the wrong type"
    for value, error in [(None, 'the IOutputAllocator of "y" gave no memory'), ("not an address", wrong_type)]:
        logger = RecordingLogger()
        context, _ = ready_context(logger)
        assert context.set_output_allocator("y", Returning(value))
        assert not context.execute_async_v3(0)
        assert logged(logger, error), logger.errors()


def test_a_profiler_that_raises_is_logged_and_the_run_still_computes():
    logger = RecordingLogger()
    context, x = ready_context(logger)
    y = np.empty((2, 5), np.float32)
    assert context.set_tensor_address("y", y.ctypes.data)
    context.profiler = Profiler(fail=True)
    context.execute_async_v3(0)
    assert logged(logger, "IProfiler.report_layer_time raised KeyError"), logger.errors()
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)


def test_an_error_recorder_that_raises_leaves_the_error_in_the_log():
    logger = RecordingLogger()
    context, _ = ready_context(logger)
    context.error_recorder = Recorder(fail=True)
    gc.collect()
    assert not context.set_input_shape("y", (2, 5)), "y is an output"
    assert logged(logger, "IErrorRecorder.report_error raised RuntimeError: recorder exploded"), logger.errors()
    assert context.error_recorder.errors == []


@pytest.mark.parametrize("cls", [trt.IProgressMonitor, trt.IOutputAllocator, trt.IProfiler, trt.IErrorRecorder])
def test_a_subclass_missing_a_method_fails_cleanly(cls):
    class Empty(cls):
        def __init__(self):
            cls.__init__(self)

    logger = RecordingLogger()
    if cls is trt.IProgressMonitor:
        assert build_mlp(logger, lambda config: setattr(config, "progress_monitor", Empty())) is None
        missing = "IProgressMonitor.phase_start"
    else:
        context, _ = ready_context(logger)
        y = np.empty((2, 5), np.float32)
        assert context.set_tensor_address("y", y.ctypes.data)
        if cls is trt.IOutputAllocator:
            assert context.set_output_allocator("y", Empty())
            assert not context.execute_async_v3(0)
            missing = "IOutputAllocator.reallocate_output"
        elif cls is trt.IProfiler:
            context.profiler = Empty()
            assert context.execute_async_v3(0)
            missing = "IProfiler.report_layer_time"
        else:
            context.error_recorder = Empty()
            assert not context.set_input_shape("y", (2, 5))
            missing = "IErrorRecorder.report_error"
    assert logged(logger, missing + ": the Python class does not implement it"), logger.errors()


def test_the_interfaces_themselves_can_be_made_and_given():
    """As in TensorRT, the base classes are constructible (their methods then count as missing)."""
    logger = RecordingLogger()
    context, _ = ready_context(logger)
    listener = trt.IDebugListener()
    assert context.set_debug_listener(listener) and context.get_debug_listener() is listener
    profiler = trt.IProfiler()
    context.profiler = profiler
    assert context.profiler is profiler
