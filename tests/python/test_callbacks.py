"""Objects written in Python that Kiln calls back (progress monitors, timing caches, output allocators, profilers,
debug listeners, error recorders): they work, they stay alive as long as the object they were given to even after the
script drops its own reference (as TensorRT's Python API keeps them), and they are released with it.
test_callback_errors.py checks what happens when one raises.

The first test is Polygraphy's sequence of calls for ``polygraphy run --trt`` (its CreateConfig, EngineBytesFromNetwork,
EngineFromBytes and TrtRunner, read from Polygraphy 0.53.6), written out without Polygraphy: the config's timing cache
and progress monitor, the debug listener and the output allocator are all created in helper functions whose locals go
away before the build or the run."""

import gc
import weakref

import numpy as np

import kiln.tensorrt as trt
from callback_classes import (BIAS, RNG, WEIGHTS, HostOutputAllocator, Listener, Monitor, Profiler, Recorder,
                              engine_of, parsed_network)
from conftest import RecordingLogger, cpu_config
from onnx_models import mlp_reference


def polygraphy_config(builder, network, kept):
    """Polygraphy's CreateConfig: a profile, flags, a fresh timing cache and a progress monitor, of which only the
    config is returned; weak references to the rest go into `kept`."""
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (3, 6), (4, 6))
    assert config.add_optimization_profile(profile) == 0
    config.clear_flag(trt.BuilderFlag.TF32)
    config.profiling_verbosity = trt.ProfilingVerbosity.DETAILED
    cache = config.create_timing_cache(b"")
    assert config.set_timing_cache(cache, ignore_mismatch=False)
    monitor = Monitor()
    config.progress_monitor = monitor
    kept.update(cache=weakref.ref(cache), monitor=weakref.ref(monitor))
    # What Polygraphy prints before building (trt_util.str_from_config) reads every flag, pool and feature.
    for flag in trt.BuilderFlag.__members__.values():
        config.get_flag(flag)
    for pool in trt.MemoryPoolType.__members__.values():
        config.get_memory_pool_limit(pool)
    config.get_tactic_sources()
    return config


def polygraphy_context(engine, kept):
    """TrtRunner.activate and infer: a context with a debug listener and an output allocator, the references to both
    dropped here (TrtRunner keeps the allocator itself; TensorRT's bindings keep both alive regardless)."""
    context = engine.create_execution_context()
    assert context.set_all_tensors_debug_state(True)
    listener = Listener()
    assert context.set_debug_listener(listener)
    allocator = HostOutputAllocator()
    assert context.set_output_allocator("y", allocator)
    kept.update(listener=weakref.ref(listener), allocator=weakref.ref(allocator))
    return context


def test_polygraphys_build_and_run_sequence_keeps_every_callback_alive():
    logger = RecordingLogger()
    builder, network, parser = parsed_network(logger)
    kept = {}
    config = polygraphy_config(builder, network, kept)
    gc.collect()
    assert kept["cache"]() is not None and kept["monitor"]() is not None, "the config must keep them alive"

    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    monitor = kept["monitor"]()
    assert ("start", "Building plan", None, 4) in monitor.events and ("finish", "Building plan") in monitor.events
    assert config.progress_monitor is monitor and config.get_timing_cache() is kept["cache"]()

    # EngineBytesFromNetwork's save_timing_cache: combine the old cache into the config's, then serialize it.
    cache = config.get_timing_cache()
    assert cache.combine(config.create_timing_cache(bytes(cache.serialize())), ignore_mismatch=True)
    with cache.serialize() as buffer:
        assert len(bytes(buffer)) > 0
    del cache

    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)  # EngineFromBytes drops the runtime and the plan
    del plan, parser, network, builder, config, monitor
    gc.collect()
    assert kept["cache"]() is None and kept["monitor"]() is None, "released with the config"

    context = polygraphy_context(engine, kept)
    gc.collect()
    assert kept["listener"]() is not None and kept["allocator"]() is not None, "the context must keep them alive"
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.set_tensor_address("x", x.ctypes.data)
    assert context.execute_async_v3(0), logger.errors()
    allocator = kept["allocator"]()
    assert allocator.shapes == {"y": (3, 5)}
    assert allocator.calls[0][:2] == ("y", 3 * 5 * 4)
    y = allocator.buffers["y"][: 3 * 5 * 4].view(np.float32).reshape(3, 5)
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)
    assert context.get_output_allocator("y") is allocator
    del allocator, context
    gc.collect()
    assert kept["listener"]() is None and kept["allocator"]() is None, "released with the context"


def test_a_profiler_and_an_error_recorder_dropped_by_the_script_still_receive_their_calls():
    logger = RecordingLogger()
    context = engine_of(logger).create_execution_context()
    context.profiler = Profiler()
    context.error_recorder = Recorder()
    gc.collect()
    x = np.ones((2, 6), np.float32)
    y = np.empty((2, 5), np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.set_tensor_address("x", x.ctypes.data) and context.set_tensor_address("y", y.ctypes.data)
    assert context.execute_async_v3(0), logger.errors()
    times = context.profiler.times
    assert times and all(ms >= 0 for _, ms in times), times
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)

    assert not context.set_input_shape("y", (2, 5))  # an output: Kiln reports it to the recorder too
    errors = context.error_recorder.errors
    assert errors and isinstance(errors[-1][0], trt.ErrorCodeTRT) and '"y" is an output' in errors[-1][1]
    assert context.error_recorder.num_errors() == len(errors)


def test_error_recorders_stay_with_builders_networks_runtimes_and_engines():
    logger = RecordingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    runtime = trt.Runtime(logger)
    holders = [builder, network, runtime, engine_of(logger)]
    recorders = []
    for holder in holders:
        recorder = Recorder()
        holder.error_recorder = recorder
        recorders.append(weakref.ref(recorder))
    del recorder
    gc.collect()
    for holder, recorder in zip(holders, recorders):
        assert holder.error_recorder is recorder() is not None
    holders[0].error_recorder = None
    assert holders[0].error_recorder is None
    del holders, builder, network, runtime, holder
    gc.collect()
    assert all(recorder() is None for recorder in recorders)


def test_a_timing_cache_that_cannot_be_read_gives_none():
    logger = RecordingLogger()
    config = trt.Builder(logger).create_builder_config()
    assert config.get_timing_cache() is None
    assert config.create_timing_cache(b"not a timing cache") is None
    assert logger.errors()


def test_the_printing_profiler(capsys):
    trt.Profiler().report_layer_time("conv", 0.25)
    assert capsys.readouterr().out == "conv: 0.25000ms\n"
