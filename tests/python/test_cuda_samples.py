"""TensorRT's documented Python patterns on Kiln's CUDA backend, with only the import changed: the ONNX sample flow
(build_engine_onnx, allocate_buffers, do_inference) on device memory from cuda-python's runtime bindings, as the
samples' common.py allocates it; an engine run on CuPy arrays and a CuPy stream; the Python plugin sample's
structure (an IPluginV3 whose enqueue wraps the device addresses with CuPy and computes on the stream it is given);
and a decorator-API plugin computing in CuPy. Expectations are numpy references. Each test is skipped where its
library (cuda-python, CuPy), a GPU or Kiln's CUDA backend is missing."""

import ctypes

import numpy as np
import pytest

import kiln
import kiln.tensorrt as trt  # the one line that differs from a TensorRT script: `import tensorrt as trt`
import kiln.tensorrt.plugin as trtp
from python_plugins import (CircularPad, circular_pad_reference, gelu_reference, pad_fields, pad_then_gelu_network,
                            registered_creator)

if not kiln.backend_available(kiln.Backend.CUDA):
    pytest.skip("Kiln was built without its CUDA backend, or it cannot run here", allow_module_level=True)

from onnx_models import mlp_model, mlp_reference  # noqa: E402 (needs onnx: skips the module where it is missing)

RNG = np.random.default_rng(23)


def cuda_runtime():
    """cuda-python's runtime bindings, under the name the samples use; skips the test where they are missing."""
    try:
        from cuda.bindings import runtime as cudart  # cuda-python 12.6 and later
    except ImportError:
        cudart = pytest.importorskip("cuda.cudart")  # older cuda-python
    error, count = cudart.cudaGetDeviceCount()
    if error != cudart.cudaError_t.cudaSuccess or count == 0:
        pytest.skip("no GPU that cuda-python can use")
    return cudart


def cupy_module():
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("no GPU that CuPy can use")
    return cp


def mlp_onnx_file(tmp_path, weights, bias):
    path = tmp_path / "mlp.onnx"
    path.write_bytes(mlp_model(weights, bias).SerializeToString())
    return str(path)


# --- The ONNX sample flow, written as TensorRT's Python samples write it (their common.py's helpers) ---------------


def check_cuda(call_result):
    """cuda-python returns (error, value...): raise on an error, give back the value(s)."""
    error, *values = call_result
    if error.value != 0:
        raise RuntimeError(f"CUDA call failed: {error}")
    return values[0] if len(values) == 1 else values or None


class HostDeviceMem:
    """A page-locked host buffer and a device buffer of the same size."""

    def __init__(self, cudart, size, dtype):
        self.cudart = cudart
        self.nbytes = size * dtype.itemsize
        host_pointer = check_cuda(cudart.cudaMallocHost(self.nbytes))
        pointer_type = ctypes.POINTER(np.ctypeslib.as_ctypes_type(dtype))
        self.host = np.ctypeslib.as_array(ctypes.cast(host_pointer, pointer_type), (size,))
        self.device = check_cuda(cudart.cudaMalloc(self.nbytes))

    def free(self):
        check_cuda(self.cudart.cudaFree(self.device))
        check_cuda(self.cudart.cudaFreeHost(self.host.ctypes.data))


def build_engine_onnx(model_file, logger, batch_range):
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    parser = trt.OnnxParser(network, logger)
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, 1 << 30)
    with open(model_file, "rb") as model:
        if not parser.parse(model.read()):
            raise RuntimeError([str(parser.get_error(i)) for i in range(parser.num_errors)])
    profile = builder.create_optimization_profile()
    low, optimum, high = batch_range
    profile.set_shape("x", (low, 6), (optimum, 6), (high, 6))
    config.add_optimization_profile(profile)
    engine_bytes = builder.build_serialized_network(network, config)
    runtime = trt.Runtime(logger)
    return runtime.deserialize_cuda_engine(engine_bytes)


def allocate_buffers(cudart, engine, context, profile_index=0):
    """Buffers for the profile's largest input shapes (set on the context, so that it gives the outputs' shapes)."""
    for index in range(engine.num_io_tensors):
        name = engine.get_tensor_name(index)
        if engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
            context.set_input_shape(name, engine.get_tensor_profile_shape(name, profile_index)[-1])
    inputs, outputs = [], []
    for index in range(engine.num_io_tensors):
        name = engine.get_tensor_name(index)
        size = trt.volume(context.get_tensor_shape(name))
        memory = HostDeviceMem(cudart, size, np.dtype(trt.nptype(engine.get_tensor_dtype(name))))
        (inputs if engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT else outputs).append((name, memory))
    stream = check_cuda(cudart.cudaStreamCreate())
    return inputs, outputs, stream


def do_inference(cudart, context, inputs, outputs, stream):
    to_device = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
    to_host = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
    for _, memory in inputs:
        check_cuda(cudart.cudaMemcpyAsync(memory.device, memory.host, memory.nbytes, to_device, stream))
    for name, memory in inputs + outputs:
        context.set_tensor_address(name, int(memory.device))
    if not context.execute_async_v3(stream_handle=stream):
        raise RuntimeError("execute_async_v3 failed")
    for _, memory in outputs:
        check_cuda(cudart.cudaMemcpyAsync(memory.host, memory.device, memory.nbytes, to_host, stream))
    check_cuda(cudart.cudaStreamSynchronize(stream))
    return [memory.host for _, memory in outputs]


def test_the_onnx_sample_flow_on_cuda_python_device_memory(logger, tmp_path):
    cudart = cuda_runtime()
    weights = RNG.standard_normal((6, 5)).astype(np.float32)
    bias = RNG.standard_normal(5).astype(np.float32)
    engine = build_engine_onnx(mlp_onnx_file(tmp_path, weights, bias), logger, (1, 4, 8))
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    inputs, outputs, stream = allocate_buffers(cudart, engine, context)
    try:
        for batch in (8, 3):  # the largest batch, then a smaller one in the same buffers
            x = RNG.standard_normal((batch, 6)).astype(np.float32)
            context.set_input_shape("x", x.shape)
            np.copyto(inputs[0][1].host[: x.size], x.ravel())
            [y] = do_inference(cudart, context, inputs, outputs, stream)
            np.testing.assert_allclose(y[: batch * 5].reshape(batch, 5), mlp_reference(x, weights, bias), rtol=1e-4,
                                       atol=1e-5)
    finally:
        for _, memory in inputs + outputs:
            memory.free()
        check_cuda(cudart.cudaStreamDestroy(stream))


# --- CuPy arrays as the tensors' memory ---------------------------------------------------------------------------


def test_an_onnx_engine_runs_on_cupy_arrays_and_a_cupy_stream(logger, tmp_path):
    cp = cupy_module()
    weights = RNG.standard_normal((6, 5)).astype(np.float32)
    bias = RNG.standard_normal(5).astype(np.float32)
    engine = build_engine_onnx(mlp_onnx_file(tmp_path, weights, bias), logger, (1, 2, 4))
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    x_host = RNG.standard_normal((4, 6)).astype(np.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        x = cp.asarray(x_host)
        y = cp.full((4, 5), cp.nan, dtype=cp.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.set_tensor_address("x", x.data.ptr)
    assert context.set_tensor_address("y", y.data.ptr)
    assert context.execute_async_v3(stream.ptr)
    stream.synchronize()
    np.testing.assert_allclose(cp.asnumpy(y), mlp_reference(x_host, weights, bias), rtol=1e-4, atol=1e-5)


# --- The Python plugin sample's structure, computing in CuPy --------------------------------------------------------


class CupyCircularPad(CircularPad):
    """CircularPad (python_plugins.py) as TensorRT's circular-padding plugin sample computes it: the addresses enqueue
    gets wrapped as CuPy arrays over unowned memory, and the work queued on the stream Kiln gives."""

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        import cupy as cp

        self.log.append(("enqueue", stream))
        dtype = np.dtype(trt.nptype(input_desc[0].type))

        def wrap(address, desc):
            nbytes = trt.volume(desc.dims) * dtype.itemsize
            memory = cp.cuda.UnownedMemory(address, nbytes, self)
            return cp.ndarray(tuple(desc.dims), dtype=dtype, memptr=cp.cuda.MemoryPointer(memory, 0))

        x, y = wrap(inputs[0], input_desc[0]), wrap(outputs[0], output_desc[0])
        pad_width = [(0, 0)] * (x.ndim - 1) + [(int(self.pads[0]), int(self.pads[1]))]
        with cp.cuda.ExternalStream(stream):
            y[...] = cp.pad(x, pad_width, mode="wrap") * float(self.scale[0])


def test_a_python_plugin_computing_in_cupy_beside_a_collection_plugin(logger):
    cp = cupy_module()
    creator = registered_creator(CupyCircularPad)
    plugin = creator.create_plugin("pad", pad_fields([1, 3], 0.5), trt.TensorRTPhase.BUILD)
    builder = trt.Builder(logger)
    network, _ = pad_then_gelu_network(builder, plugin, (2, 5))
    plan = builder.build_serialized_network(network, builder.create_builder_config())
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)  # the runtime plugin comes from the creator
    assert engine is not None, logger.errors()

    x_host = np.linspace(-3, 3, 10, dtype=np.float32).reshape(2, 5)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        x = cp.asarray(x_host)
        y = cp.full((2, 9), cp.nan, dtype=cp.float32)
    context = engine.create_execution_context()
    assert context.set_tensor_address("x", x.data.ptr)
    assert context.set_tensor_address("y", y.data.ptr)
    assert context.execute_async_v3(stream.ptr)
    stream.synchronize()
    expected = gelu_reference(circular_pad_reference(x_host, [1, 3], 0.5))
    np.testing.assert_allclose(cp.asnumpy(y), expected, rtol=1e-4, atol=1e-5)
    assert ("enqueue", stream.ptr) in creator.log  # enqueue got the stream the context ran on


# --- A decorator-API plugin whose impl computes in CuPy -------------------------------------------------------------


@trtp.register("kiln_cupy::softsign")
def softsign_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("kiln_cupy::softsign")
def softsign_impl(x, outputs, stream):
    import cupy as cp

    with cp.cuda.ExternalStream(stream):
        source = cp.asarray(x)  # through __cuda_array_interface__
        target = cp.from_dlpack(outputs[0])  # through DLPack
        target[...] = source / (1 + cp.abs(source))


def test_a_decorator_plugin_with_a_cupy_impl(logger):
    cp = cupy_module()
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (3, 7))
    layer = network.add_plugin(trtp.op.kiln_cupy.softsign(x))
    assert layer is not None, logger.errors()
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    plan = builder.build_serialized_network(network, builder.create_builder_config())
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)

    x_host = RNG.standard_normal((3, 7)).astype(np.float32) * 4
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        x_device = cp.asarray(x_host)
        y_device = cp.full((3, 7), cp.nan, dtype=cp.float32)
    context = engine.create_execution_context()
    context.set_tensor_address("x", x_device.data.ptr)
    context.set_tensor_address("y", y_device.data.ptr)
    assert context.execute_async_v3(stream.ptr)
    stream.synchronize()
    np.testing.assert_allclose(cp.asnumpy(y_device), x_host / (1 + np.abs(x_host)), rtol=1e-6, atol=1e-7)
