"""TensorRT's documented Python sample flow (ONNX -> serialized engine -> runtime -> inference: build_engine_onnx,
allocate_buffers, do_inference), written as a user writes it for TensorRT. What differs: the import, the backend
line, and the buffers, which are numpy arrays (Kiln's CPU backend) where the sample allocates CUDA memory."""

import numpy as np

import kiln
import kiln.tensorrt as trt
from onnx_models import mlp_model, mlp_reference

TRT_LOGGER = trt.Logger(trt.Logger.WARNING)


def GiB(val):
    return val * 1 << 30


def build_engine_onnx(model_file):
    builder = trt.Builder(TRT_LOGGER)
    network = builder.create_network(0)
    config = builder.create_builder_config()
    config.kiln_backend = kiln.Backend.CPU  # Kiln: run on the CPU, with host buffers
    parser = trt.OnnxParser(network, TRT_LOGGER)

    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, GiB(1))
    with open(model_file, "rb") as model:
        if not parser.parse(model.read()):
            print("ERROR: Failed to parse the ONNX file.")
            for error in range(parser.num_errors):
                print(parser.get_error(error))
            return None
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    engine_bytes = builder.build_serialized_network(network, config)
    runtime = trt.Runtime(TRT_LOGGER)
    return runtime.deserialize_cuda_engine(engine_bytes)


class HostDeviceMem:
    def __init__(self, size, dtype):
        self.host = np.empty(size, dtype)

    @property
    def device(self):
        return self.host.ctypes.data  # Kiln's CPU backend: host memory is the tensor's memory


def allocate_buffers(engine, batch):
    inputs, outputs, bindings = [], [], []
    for i in range(engine.num_io_tensors):
        tensor_name = engine.get_tensor_name(i)
        shape = engine.get_tensor_shape(tensor_name)
        shape = [batch if extent == -1 else extent for extent in shape]
        size = trt.volume(shape)
        dtype = np.dtype(trt.nptype(engine.get_tensor_dtype(tensor_name)))
        binding_memory = HostDeviceMem(size, dtype)
        bindings.append(int(binding_memory.device))
        if engine.get_tensor_mode(tensor_name) == trt.TensorIOMode.INPUT:
            inputs.append(binding_memory)
        else:
            outputs.append(binding_memory)
    return inputs, outputs, bindings


def do_inference(context, engine, bindings, inputs, outputs, stream=0):
    num_io = engine.num_io_tensors
    for i in range(num_io):
        context.set_tensor_address(engine.get_tensor_name(i), bindings[i])
    context.execute_async_v3(stream_handle=stream)
    return [out.host for out in outputs]


def test_onnx_sample_flow(tmp_path):
    weights = np.linspace(-1, 1, 30, dtype=np.float32).reshape(6, 5)
    bias = np.linspace(0, 0.5, 5, dtype=np.float32)
    model_file = tmp_path / "model.onnx"
    model_file.write_bytes(mlp_model(weights, bias).SerializeToString())

    engine = build_engine_onnx(str(model_file))
    assert engine is not None
    inputs, outputs, bindings = allocate_buffers(engine, batch=2)
    context = engine.create_execution_context()
    context.set_input_shape("x", (2, 6))
    x = np.arange(12, dtype=np.float32).reshape(2, 6) / 10
    np.copyto(inputs[0].host, x.ravel())
    [output] = do_inference(context, engine, bindings, inputs, outputs)
    np.testing.assert_allclose(output.reshape(2, 5), mlp_reference(x, weights, bias), rtol=1e-5, atol=1e-6)
