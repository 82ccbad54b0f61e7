"""The Python API on Kiln's CUDA backend, as TensorRT's users write it: torch tensors' data_ptr() as the tensors'
addresses and a torch stream's cuda_stream as the stream; engines from the network API and from ONNX; a Python
IPluginV3 plugin whose enqueue computes in torch on the device pointers, in a network with a plugin of Kiln's
collection; a tensorrt.plugin (decorator API) plugin whose impl uses torch through __cuda_array_interface__ and
DLPack. Expectations are numpy references. Skipped without torch, a usable GPU, or Kiln's CUDA backend."""

import numpy as np
import pytest

import kiln
import kiln.tensorrt as trt
import kiln.tensorrt.plugin as trtp
from python_plugins import (CircularPad, circular_pad_reference, gelu_reference, pad_fields, pad_then_gelu_network,
                            registered_creator)

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU that torch can use", allow_module_level=True)
if not kiln.backend_available(kiln.Backend.CUDA):
    pytest.skip("Kiln was built without its CUDA backend, or it cannot run here", allow_module_level=True)

from onnx_models import mlp_model, mlp_reference  # noqa: E402 (needs onnx: skips the module where it is missing)

TORCH_TYPES = {
    trt.float32: torch.float32,
    trt.float16: torch.float16,
    trt.int8: torch.int8,
    trt.int32: torch.int32,
    trt.int64: torch.int64,
    trt.uint8: torch.uint8,
    trt.bool: torch.bool,
}
RNG = np.random.default_rng(17)


def on_device(array):
    return torch.from_numpy(np.ascontiguousarray(array)).cuda()


def run_on_device(engine, inputs, context=None, stream=None):
    """Runs the engine on torch CUDA tensors (by name) on a torch stream, as TensorRT's Python users do; returns the
    outputs as torch tensors by name."""
    context = context or engine.create_execution_context()
    stream = stream or torch.cuda.Stream()
    for name, tensor in inputs.items():
        assert context.set_input_shape(name, tuple(tensor.shape))
    keep, outputs = [], {}
    for index in range(engine.num_io_tensors):
        name = engine.get_tensor_name(index)
        if engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT:
            tensor = inputs[name].contiguous()
            keep.append(tensor)
        else:
            shape = tuple(context.get_tensor_shape(name))
            tensor = torch.empty(shape, dtype=TORCH_TYPES[engine.get_tensor_dtype(name)], device="cuda")
            outputs[name] = tensor
        assert context.set_tensor_address(name, tensor.data_ptr())
        assert context.get_tensor_address(name) == tensor.data_ptr()
    stream.wait_stream(torch.cuda.current_stream())  # the inputs were written on torch's current stream
    assert context.execute_async_v3(stream.cuda_stream)
    stream.synchronize()
    return outputs


def default_engine(builder, network, logger):
    """Built with an untouched config, whose backend is TensorRT's: the GPU's. Loaded in a fresh Runtime."""
    config = builder.create_builder_config()
    assert config.kiln_backend == kiln.Backend.DEFAULT
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(bytes(plan))
    assert engine is not None, logger.errors()
    return engine


def test_network_api_engine_runs_on_torch_tensors(logger):
    # y = sum over the last axis of relu(x * w + b), w and b constants broadcast over the batch.
    w = RNG.standard_normal((1, 5)).astype(np.float32)
    b = RNG.standard_normal((1, 5)).astype(np.float32)
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (3, 5))
    scaled = network.add_elementwise(x, network.add_constant(w.shape, w).get_output(0), trt.ElementWiseOperation.PROD)
    shifted = network.add_elementwise(
        scaled.get_output(0), network.add_constant(b.shape, b).get_output(0), trt.ElementWiseOperation.SUM)
    relu = network.add_activation(shifted.get_output(0), trt.ActivationType.RELU)
    total = network.add_reduce(relu.get_output(0), trt.ReduceOperation.SUM, 1 << 1, keep_dims=False)
    total.get_output(0).name = "y"
    network.mark_output(total.get_output(0))
    engine = default_engine(builder, network, logger)

    xv = RNG.standard_normal((3, 5)).astype(np.float32)
    y = run_on_device(engine, {"x": on_device(xv)})["y"]
    assert y.device.type == "cuda" and tuple(y.shape) == (3,)
    np.testing.assert_allclose(y.cpu().numpy(), np.maximum(xv * w + b, 0).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_onnx_engine_with_a_dynamic_batch_on_a_torch_stream_and_execute_v2(logger):
    weights = RNG.standard_normal((6, 5)).astype(np.float32)
    bias = RNG.standard_normal(5).astype(np.float32)
    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    parsed = parser.parse(mlp_model(weights, bias).SerializeToString())
    assert parsed, [str(parser.get_error(i)) for i in range(parser.num_errors)]
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (4, 6), (8, 6))
    config = builder.create_builder_config()
    config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    context = engine.create_execution_context()

    # Two batch sizes in one context, each on a torch stream of its own.
    for batch in (3, 8):
        xv = RNG.standard_normal((batch, 6)).astype(np.float32)
        y = run_on_device(engine, {"x": on_device(xv)}, context)["y"]
        np.testing.assert_allclose(y.cpu().numpy(), mlp_reference(xv, weights, bias), rtol=1e-4, atol=1e-5)

    # execute_v2: synchronous, the bindings' device addresses in engine order.
    xv = RNG.standard_normal((2, 6)).astype(np.float32)
    x, y = on_device(xv), torch.full((2, 5), float("nan"), device="cuda")
    assert context.set_input_shape("x", (2, 6))
    torch.cuda.synchronize()
    assert context.execute_v2([x.data_ptr(), y.data_ptr()])
    np.testing.assert_allclose(y.cpu().numpy(), mlp_reference(xv, weights, bias), rtol=1e-4, atol=1e-5)


class DeviceMemory:
    """How a Python plugin hands torch a device address it was given: an object with __cuda_array_interface__."""

    def __init__(self, address, desc):
        self.__cuda_array_interface__ = {
            "shape": tuple(desc.dims),
            "typestr": np.dtype(trt.nptype(desc.type)).str,
            "data": (address, False),
            "strides": None,
            "version": 3,
        }


def device_tensor(address, desc):
    return torch.as_tensor(DeviceMemory(address, desc), device="cuda")


class TorchCircularPad(CircularPad):
    """CircularPad (python_plugins.py) computing on the device in torch, on the stream Kiln gives enqueue."""

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue", stream))
        x = device_tensor(inputs[0], input_desc[0])
        y = device_tensor(outputs[0], output_desc[0])
        width, before = x.shape[-1], int(self.pads[0])
        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
            columns = torch.tensor([(j - before) % width for j in range(y.shape[-1])], device="cuda")
            y.copy_(x[..., columns] * float(self.scale[0]))


def test_python_plugin_computing_in_torch_beside_a_collection_plugin(logger):
    creator = registered_creator(TorchCircularPad)
    plugin = creator.create_plugin("pad", pad_fields([2, 1], 1.5), trt.TensorRTPhase.BUILD)
    builder = trt.Builder(logger)
    network, _ = pad_then_gelu_network(builder, plugin, (3, 4))
    engine = default_engine(builder, network, logger)  # the runtime plugin comes from the creator, with the fields

    xv = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    stream = torch.cuda.Stream()
    y = run_on_device(engine, {"x": on_device(xv)}, stream=stream)["y"]
    expected = gelu_reference(circular_pad_reference(xv, [2, 1], 1.5))
    np.testing.assert_allclose(y.cpu().numpy(), expected, rtol=1e-4, atol=1e-5)
    assert ("enqueue", stream.cuda_stream) in creator.log  # enqueue got the stream the context ran on


# A decorator-API plugin computing in torch: one input viewed through __cuda_array_interface__, the other through
# DLPack. What each call received, for the test to check.
device_calls = []


@trtp.register("kiln_gpu::scaled_add")
def scaled_add_desc(a: trtp.TensorDesc, b: trtp.TensorDesc, alpha: float) -> trtp.TensorDesc:
    return a.like()


@trtp.impl("kiln_gpu::scaled_add")
def scaled_add_impl(a, b, alpha: float, outputs, stream):
    device_calls.append((a.on_device, stream, a.__cuda_array_interface__["stream"], b.__dlpack_device__()[0]))
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        ta = torch.as_tensor(a, device="cuda")
        tb = torch.from_dlpack(b)
        torch.as_tensor(outputs[0], device="cuda").copy_(ta + alpha * tb)


@trtp.register("kiln_gpu::fails")
def fails_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("kiln_gpu::fails")
def fails_impl(x, outputs, stream):
    raise ZeroDivisionError("no kernel today")


def test_decorator_plugin_with_a_torch_impl_between_built_in_layers(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 8))
    y = network.add_input("y", trt.float32, (2, 8))
    layer = network.add_plugin(trtp.op.kiln_gpu.scaled_add(x, y, alpha=-0.5))
    assert layer is not None, logger.errors()
    relu = network.add_activation(layer.get_output(0), trt.ActivationType.RELU)
    relu.get_output(0).name = "z"
    network.mark_output(relu.get_output(0))
    engine = default_engine(builder, network, logger)

    xv = RNG.standard_normal((2, 8)).astype(np.float32)
    yv = RNG.standard_normal((2, 8)).astype(np.float32)
    stream = torch.cuda.Stream()
    del device_calls[:]
    z = run_on_device(engine, {"x": on_device(xv), "y": on_device(yv)}, stream=stream)["z"]
    np.testing.assert_allclose(z.cpu().numpy(), np.maximum(xv - 0.5 * yv, 0), rtol=1e-6, atol=1e-6)
    # Device tensors, the context's stream as the impl's and as the interface's stream, DLPack's kDLCUDA (2).
    assert device_calls == [(True, stream.cuda_stream, stream.cuda_stream, 2)]


def test_a_raising_impl_on_the_gpu_fails_the_run_naming_the_plugin(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4,))
    layer = network.add_plugin(trtp.op.kiln_gpu.fails(x))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = default_engine(builder, network, logger)
    context = engine.create_execution_context()
    x_memory, y_memory = torch.zeros(4, device="cuda"), torch.zeros(4, device="cuda")
    context.set_tensor_address("x", x_memory.data_ptr())
    context.set_tensor_address("y", y_memory.data_ptr())
    stream = torch.cuda.Stream()
    assert not context.execute_async_v3(stream.cuda_stream)
    stream.synchronize()
    assert any("fails" in message and "ZeroDivisionError: no kernel today" in message for message in logger.errors())
