"""The Python plugin samples' flows on Kiln's CUDA backend, the plugins computing in torch on the device addresses and
the stream enqueue gets (as NVIDIA's circ_pad torch sample does): an IPluginV2DynamicExt through a fresh Runtime, a
multi-tactic IPluginV3 whose tactics the builder times on the GPU, an aliased-I/O plugin updating its input's memory in
place, and a data-dependent output. Expectations are numpy references. Skipped without torch, a usable GPU, or Kiln's
CUDA backend."""

import time

import numpy as np
import pytest

import kiln
import kiln.tensorrt as trt
from python_plugin_samples import (CircPadV2, MultiTacticPad, MultiTacticPadCreator, NonZero, ScatterAdd,
                                   SingleCreator, circular_pad_reference, fresh_namespace, pads_field,
                                   registered_v2_creator)

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU that torch can use", allow_module_level=True)
if not kiln.backend_available(kiln.Backend.CUDA):
    pytest.skip("Kiln was built without its CUDA backend, or it cannot run here", allow_module_level=True)

TORCH_TYPES = {trt.float32: torch.float32, trt.int32: torch.int32, trt.int64: torch.int64}


class DeviceMemory:
    """A device address as torch takes it: an object with __cuda_array_interface__."""

    def __init__(self, address, desc, shape=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(desc.dims) if shape is None else shape,
            "typestr": np.dtype(trt.nptype(desc.type)).str,
            "data": (address, False),
            "strides": None,
            "version": 3,
        }


def device_tensor(address, desc, shape=None):
    return torch.as_tensor(DeviceMemory(address, desc, shape), device="cuda")


def gpu_config(builder):
    config = builder.create_builder_config()
    config.kiln_backend = kiln.Backend.CUDA
    return config


def run(engine, inputs, outputs):
    """Runs on torch tensors (inputs by name; outputs by name, allocated by the caller) on a torch stream."""
    context = engine.create_execution_context()
    stream = torch.cuda.Stream()
    for name, tensor in {**inputs, **outputs}.items():
        assert context.set_tensor_address(name, tensor.data_ptr())
    stream.wait_stream(torch.cuda.current_stream())
    assert context.execute_async_v3(stream.cuda_stream)
    stream.synchronize()
    return stream


def build_and_load(builder, network, logger, config=None):
    plan = builder.build_serialized_network(network, config or gpu_config(builder))
    assert plan is not None, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    return engine


class TorchCircPadV2(CircPadV2):
    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue", stream))
        x = device_tensor(inputs[0], input_desc[0])
        y = device_tensor(outputs[0], output_desc[0])
        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
            y.copy_(torch.nn.functional.pad(x.unsqueeze(0), self.pads.tolist(), mode="circular").squeeze(0))
        return 0


def test_v2_dynamic_ext_plugin_in_torch_through_a_fresh_runtime(logger):
    creator = registered_v2_creator(TorchCircPadV2)
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3, 4))
    layer = network.add_plugin_v2([x], creator.create_plugin("pad", pads_field([1, 2, 1, 0])))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = build_and_load(builder, network, logger)

    xv = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    y = torch.zeros((2, 4, 7), device="cuda")
    stream = run(engine, {"x": torch.from_numpy(xv).cuda()}, {"y": y})
    np.testing.assert_array_equal(y.cpu().numpy(), circular_pad_reference(xv, [1, 2, 1, 0]))
    assert ("enqueue", stream.cuda_stream) in creator.log
    assert creator.deserialized  # the engine's plugin came from deserialize_plugin


class TorchMultiTacticPad(MultiTacticPad):
    def clone(self):
        copy = TorchMultiTacticPad(self.slow_tactic, self.phase, self.log, self.plugin_namespace)
        copy.tactic = self.tactic
        return copy

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("enqueue", self.phase, self.tactic))
        if self.tactic == self.slow_tactic:
            time.sleep(0.05)  # between the timing events: the GPU waits for the launch below
        x = device_tensor(inputs[0], input_desc[0])
        y = device_tensor(outputs[0], output_desc[0])
        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
            y.copy_(torch.cat([x[..., -1:], x, x[..., :1]], dim=-1))


class TorchMultiTacticPadCreator(MultiTacticPadCreator):
    def create_plugin(self, name, fc, phase):
        fields = {field.name: np.array(field.data) for field in fc}
        return TorchMultiTacticPad(int(fields["slow_tactic"][0]), phase, self.log, self.plugin_namespace)


@pytest.mark.parametrize("slow_tactic, fast_tactic", [(1, 2), (2, 1)])
def test_multi_tactic_plugin_timed_on_the_gpu(logger, slow_tactic, fast_tactic):
    log = []
    creator = TorchMultiTacticPadCreator(fresh_namespace("py_gpu_tactics"), log)
    assert trt.get_plugin_registry().register_creator(creator, creator.plugin_namespace)
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    plugin = TorchMultiTacticPad(slow_tactic, trt.TensorRTPhase.BUILD, log, creator.plugin_namespace)
    layer = network.add_plugin_v3([x], [], plugin)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = build_and_load(builder, network, logger)
    assert ("enqueue", trt.TensorRTPhase.BUILD, slow_tactic) in log  # both were timed

    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = torch.zeros((2, 5), device="cuda")
    run(engine, {"x": torch.from_numpy(xv).cuda()}, {"y": y})
    np.testing.assert_array_equal(y.cpu().numpy(), [[2, 0, 1, 2, 0], [5, 3, 4, 5, 3]])
    # The runtime plugin gets the plan's tactic when a context attaches it, before it runs.
    assert ("set_tactic", trt.TensorRTPhase.RUNTIME, fast_tactic) in log
    assert ("enqueue", trt.TensorRTPhase.RUNTIME, fast_tactic) in log


class TorchScatterAdd(ScatterAdd):
    def clone(self):
        return TorchScatterAdd(self.log, self.aliased_to, self.plugin_namespace)

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        self.log.append(("same memory", inputs[0] == outputs[0]))
        x = device_tensor(inputs[0], input_desc[0])
        src = device_tensor(inputs[1], input_desc[1])
        idx = device_tensor(inputs[2], input_desc[2])
        counts = device_tensor(outputs[1], output_desc[1])
        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
            x[:, 0].index_add_(0, idx - 1, src)  # in place, in the memory the output shares
            counts.zero_()
            counts[:, 0].index_add_(0, idx - 1, torch.ones_like(idx))


def test_aliased_io_plugin_updates_in_place_on_the_gpu(logger):
    log = []
    namespace = fresh_namespace("py_gpu_alias")
    creator = SingleCreator("ScatterAdd", namespace, lambda phase: TorchScatterAdd(log, namespace=namespace))
    assert trt.get_plugin_registry().register_creator(creator, namespace)
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4, 1))
    src = network.add_input("src", trt.float32, (6,))
    idx = network.add_input("idx", trt.int64, (6,))
    layer = network.add_plugin_v3([x, src, idx], [], TorchScatterAdd(log, namespace=namespace))
    layer.get_output(0).name = "y"
    layer.get_output(1).name = "counts"
    network.mark_output(layer.get_output(0))
    network.mark_output(layer.get_output(1))
    config = gpu_config(builder)
    config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)
    engine = build_and_load(builder, network, logger, config)

    inputs = {
        "x": torch.tensor([[10.0], [20.0], [30.0], [40.0]], device="cuda"),
        "src": torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], device="cuda"),
        "idx": torch.tensor([1, 2, 2, 4, 1, 3], device="cuda"),
    }
    outputs = {"y": torch.zeros((4, 1), device="cuda"), "counts": torch.zeros((4, 1), dtype=torch.int64, device="cuda")}
    run(engine, inputs, outputs)
    assert ("same memory", True) in log
    np.testing.assert_array_equal(outputs["y"].cpu().numpy(), [[16], [25], [36], [44]])
    np.testing.assert_array_equal(outputs["counts"].cpu().numpy(), [[2], [2], [1], [1]])
    np.testing.assert_array_equal(inputs["x"].cpu().numpy(), [[10], [20], [30], [40]])  # the input kept


class TorchNonZero(NonZero):
    def clone(self):
        return TorchNonZero(self.log, self.plugin_namespace)

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        x = device_tensor(inputs[0], input_desc[0])
        rows = int(np.prod(input_desc[0].dims))
        indices = device_tensor(outputs[0], output_desc[0], shape=(rows, 2))
        count = device_tensor(outputs[1], output_desc[1], shape=(1,))
        with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
            found = torch.nonzero(x).to(torch.int32)
            indices[: found.shape[0]].copy_(found)
            count.fill_(found.shape[0])


class DeviceOutputAllocator(trt.IOutputAllocator):
    def __init__(self):
        trt.IOutputAllocator.__init__(self)
        self.buffers, self.shapes = {}, {}

    def reallocate_output(self, tensor_name, memory, size, alignment):
        self.buffers[tensor_name] = torch.empty(max(size, 1), dtype=torch.uint8, device="cuda")
        return self.buffers[tensor_name].data_ptr()

    def notify_shape(self, tensor_name, shape):
        self.shapes[tensor_name] = tuple(shape)


def test_data_dependent_plugin_output_on_the_gpu(logger):
    log = []
    namespace = fresh_namespace("py_gpu_nonzero")
    creator = SingleCreator("NonZero", namespace, lambda phase: TorchNonZero(log, namespace))
    assert trt.get_plugin_registry().register_creator(creator, namespace)
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (3, 4))
    layer = network.add_plugin_v3([x], [], TorchNonZero(log, namespace))
    layer.get_output(0).name = "indices"
    network.mark_output(layer.get_output(0))
    engine = build_and_load(builder, network, logger)

    xv = np.array([[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 4]], np.float32)
    context = engine.create_execution_context()
    x_device = torch.from_numpy(xv).cuda()
    context.set_tensor_address("x", x_device.data_ptr())
    allocator = DeviceOutputAllocator()
    assert context.set_output_allocator("indices", allocator)
    stream = torch.cuda.Stream()
    assert context.execute_async_v3(stream.cuda_stream), logger.errors()
    stream.synchronize()
    assert allocator.shapes["indices"] == (4, 2)
    got = allocator.buffers["indices"][:32].view(torch.int32).reshape(4, 2).cpu().numpy()
    np.testing.assert_array_equal(got, np.transpose(np.nonzero(xv)))
