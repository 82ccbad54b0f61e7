"""``tensorrt.plugin`` on Kiln's CUDA backend, as TensorRT's quickly-deployable-plugins sample runs it: torch
implementations on the plugin's stream (an element-wise plugin whose @autotune offers FP32 or FP16, an in-place
plugin whose output aliases its input, a non-zero plugin with a data-dependent output, a circular padding with two
tactics through the ONNX parser) and an ahead-of-time plugin whose PTX kernel the plan carries and Kiln launches.
Expectations are numpy references. Skipped without torch, a usable GPU, or Kiln's CUDA backend."""

from typing import List, Tuple

import numpy as np
import numpy.typing as npt
import pytest

import kiln
import kiln.tensorrt as trt
import kiln.tensorrt.plugin as trtp

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU that torch can use", allow_module_level=True)
if not kiln.backend_available(kiln.Backend.CUDA):
    pytest.skip("Kiln was built without its CUDA backend, or it cannot run here", allow_module_level=True)

from test_cuda_backend import default_engine, on_device, run_on_device  # noqa: E402 (after the skips)
from decorator_samples import aliasing_config, circ_pad_onnx, circ_pad_reference  # noqa: E402


@trtp.register("kiln_gpu_qdp::add_one")
def add_one_desc(inp0: trtp.TensorDesc, block_size: int) -> trtp.TensorDesc:
    return inp0.like()


@trtp.autotune("kiln_gpu_qdp::add_one")
def add_one_autotune(inp0: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    return [trtp.AutoTuneCombination("FP32|FP16, FP32|FP16")]


@trtp.impl("kiln_gpu_qdp::add_one")
def add_one_impl(inp0, block_size: int, outputs, stream) -> None:
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        torch.as_tensor(outputs[0], device="cuda").copy_(torch.as_tensor(inp0, device="cuda") + 1)


def test_an_autotuned_element_wise_plugin(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (10, 3, 32, 32))
    layer = network.add_plugin(trtp.op.kiln_gpu_qdp.add_one(x, block_size=256))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    xv = torch.randint(10, (10, 3, 32, 32), dtype=torch.float32, device="cuda")
    y = run_on_device(default_engine(builder, network, logger), {"x": xv})["y"]
    assert torch.equal(y, xv + 1)


@trtp.register("kiln_gpu_qdp::add_in_place")
def add_in_place_desc(inp0: trtp.TensorDesc, delta: int) -> trtp.TensorDesc:
    return inp0.aliased()


@trtp.impl("kiln_gpu_qdp::add_in_place")
def add_in_place_impl(inp0, delta: int, outputs, stream) -> None:
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        torch.as_tensor(inp0, device="cuda").add_(delta)


def test_two_in_place_plugins_on_one_buffer(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (10, 3, 32, 32))
    first = network.add_plugin(trtp.op.kiln_gpu_qdp.add_in_place(x, delta=2))
    second = network.add_plugin(trtp.op.kiln_gpu_qdp.add_in_place(first.get_output(0), delta=4))
    second.get_output(0).name = "y"
    network.mark_output(second.get_output(0))
    config = aliasing_config(builder.create_builder_config())
    engine = trt.Runtime(logger).deserialize_cuda_engine(bytes(builder.build_serialized_network(network, config)))
    assert engine is not None, logger.errors()
    buffer = torch.ones((10, 3, 32, 32), dtype=torch.float32, device="cuda")
    context = engine.create_execution_context()
    assert context.set_tensor_address("x", buffer.data_ptr()) and context.set_tensor_address("y", buffer.data_ptr())
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    assert context.execute_async_v3(stream.cuda_stream), logger.errors()
    stream.synchronize()
    assert torch.equal(buffer, torch.full_like(buffer, 7))


@trtp.register("kiln_gpu_qdp::non_zero")
def non_zero_desc(inp0: trtp.TensorDesc) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
    upper_bound = inp0.shape_expr[0] * inp0.shape_expr[1]
    count = trtp.size_tensor(upper_bound // 2, upper_bound)
    count.dtype = trt.int64
    return trtp.from_shape_expr((count.expr(), 2), dtype=trt.int32), count


@trtp.impl("kiln_gpu_qdp::non_zero")
def non_zero_impl(inp0, outputs, stream) -> None:
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        found = torch.nonzero(torch.as_tensor(inp0, device="cuda"))
        torch.as_tensor(outputs[0].aliased(found.shape), device="cuda").copy_(found)
        torch.as_tensor(outputs[1], device="cuda").reshape(-1).fill_(found.shape[0])


class DeviceOutputAllocator(trt.IOutputAllocator):
    def __init__(self):
        trt.IOutputAllocator.__init__(self)
        self.buffers, self.shapes = {}, {}

    def reallocate_output(self, tensor_name, memory, size, alignment):
        self.buffers[tensor_name] = torch.empty(max(size, 1), dtype=torch.uint8, device="cuda")
        return self.buffers[tensor_name].data_ptr()

    def notify_shape(self, tensor_name, shape):
        self.shapes[tensor_name] = tuple(shape)


def test_a_non_zero_plugin_with_a_data_dependent_output(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("X", trt.float32, (128, 128))
    layer = network.add_plugin(trtp.op.kiln_gpu_qdp.non_zero(x))
    layer.get_output(0).name = "Y"
    network.mark_output(layer.get_output(0))
    engine = default_engine(builder, network, logger)
    xv = np.random.default_rng(2).normal(size=(128, 128)).astype(np.float32)
    xv.reshape(-1)[np.random.default_rng(3).choice(128 * 128, 5000, replace=False)] = 0
    device_x = on_device(xv)
    context = engine.create_execution_context()
    allocator = DeviceOutputAllocator()
    assert context.set_output_allocator("Y", allocator) and context.set_tensor_address("X", device_x.data_ptr())
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    assert context.execute_async_v3(stream.cuda_stream), logger.errors()
    stream.synchronize()
    count = 128 * 128 - 5000
    assert allocator.shapes["Y"] == (count, 2)
    y = allocator.buffers["Y"][: count * 8].view(torch.int32).reshape(count, 2).cpu().numpy()
    np.testing.assert_array_equal(y, np.transpose(np.nonzero(xv)))


@trtp.register("kiln_gpu_qdp::circ_pad")
def circ_pad_desc(inp0: trtp.TensorDesc, pads: npt.NDArray[np.int32]) -> trtp.TensorDesc:
    out = inp0.like()
    for i in range(np.size(pads) // 2):
        out.shape_expr[inp0.ndim - i - 1] += int(pads[i * 2] + pads[i * 2 + 1])
    return out


@trtp.autotune("kiln_gpu_qdp::circ_pad")
def circ_pad_autotune(inp0, outputs):
    combination = trtp.AutoTuneCombination()
    combination.pos([0, 1], "FP32|FP16")
    combination.tactics([1, 2])
    return [combination]


@trtp.impl("kiln_gpu_qdp::circ_pad")
def circ_pad_impl(inp0, pads: npt.NDArray[np.int32], outputs, stream, tactic: int) -> None:
    with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
        x = torch.as_tensor(inp0, device="cuda")
        out = torch.as_tensor(outputs[0], device="cuda")
        if tactic == 1:
            out.copy_(torch.nn.functional.pad(x, pads.tolist(), mode="circular"))
        else:  # 2: by index arithmetic, as the sample's Triton kernel
            p = pads.tolist()
            rows = (torch.arange(out.shape[2], device="cuda") - p[2]) % x.shape[2]
            cols = (torch.arange(out.shape[3], device="cuda") - p[0]) % x.shape[3]
            out.copy_(x[:, :, rows][:, :, :, cols])


def test_a_two_tactic_plugin_from_the_onnx_parser(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    pads = np.array((1, 2, 2, 1), np.int32)
    model = circ_pad_onnx((10, 3, 32, 32), pads, namespace="kiln_gpu_qdp")
    assert parser.parse(model), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    engine = default_engine(builder, network, logger)
    xv = np.random.default_rng(4).normal(size=(10, 3, 32, 32)).astype(np.float32)
    y = run_on_device(engine, {"x": on_device(xv)})["y"].cpu().numpy()
    np.testing.assert_array_equal(y, circ_pad_reference(xv, pads))


# The PTX of this CUDA C kernel (nvcc -ptx -arch=compute_75), written for these tests:
#   extern "C" __global__ void kiln_add_scaled(float const* x, int n, int scale, float* y)
#   { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { y[i] = x[i] * scale + 1.0f; } }
ADD_SCALED_PTX = """.version 8.0
.target sm_75
.address_size 64
.visible .entry kiln_add_scaled(
    .param .u64 kiln_add_scaled_param_0,
    .param .u32 kiln_add_scaled_param_1,
    .param .u32 kiln_add_scaled_param_2,
    .param .u64 kiln_add_scaled_param_3
)
{
    .reg .pred %p<2>;
    .reg .f32 %f<4>;
    .reg .b32 %r<7>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [kiln_add_scaled_param_0];
    ld.param.u32 %r3, [kiln_add_scaled_param_1];
    ld.param.u32 %r2, [kiln_add_scaled_param_2];
    ld.param.u64 %rd2, [kiln_add_scaled_param_3];
    mov.u32 %r4, %ctaid.x;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.lo.s32 %r1, %r4, %r5, %r6;
    setp.ge.s32 %p1, %r1, %r3;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    mul.wide.s32 %rd4, %r1, 4;
    add.s64 %rd5, %rd3, %rd4;
    cvt.rn.f32.s32 %f1, %r2;
    ld.global.f32 %f2, [%rd5];
    fma.rn.f32 %f3, %f2, %f1, 0f3F800000;
    cvta.to.global.u64 %rd6, %rd2;
    add.s64 %rd7, %rd6, %rd4;
    st.global.f32 [%rd7], %f3;
DONE:
    ret;
}
"""
aot_calls = []


@trtp.register("kiln_gpu_qdp::add_scaled")
def add_scaled_desc(inp0: trtp.TensorDesc, scale: int) -> trtp.TensorDesc:
    return inp0.like()


@trtp.aot_impl("kiln_gpu_qdp::add_scaled")
def add_scaled_aot(inp0: trtp.TensorDesc, scale: int, outputs: Tuple[trtp.TensorDesc], tactic: int):
    aot_calls.append(tactic)
    launch = trtp.KernelLaunchParams()
    launch.grid_x = trtp.cdiv(inp0.shape_expr.numel(), 256)
    launch.block_x = 256
    args = trtp.SymIntExprs.from_tuple([trtp.SymInt32(inp0.shape_expr.numel()), trtp.SymInt32(scale)])
    return "kiln_add_scaled", ADD_SCALED_PTX, launch, args


def test_an_ahead_of_time_kernel_runs_from_the_plan_without_python(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 700))
    layer = network.add_plugin(trtp.op.kiln_gpu_qdp.add_scaled(x, scale=3), aot=True)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 700), (4, 700), (9, 700))
    config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None and aot_calls, logger.errors()
    engine = trt.Runtime(logger).deserialize_cuda_engine(bytes(plan))
    del aot_calls[:]
    for rows in (1, 5, 9):
        xv = np.random.default_rng(rows).normal(size=(rows, 700)).astype(np.float32)
        y = run_on_device(engine, {"x": on_device(xv)})["y"].cpu().numpy()
        # The kernel may fuse x * 3 + 1 into one rounding where numpy rounds twice: an ulp apart near zero.
        np.testing.assert_allclose(y, xv * 3 + 1, rtol=1e-6, atol=1e-6)
    assert aot_calls == []  # the plan's kernel and formulas ran: @aot_impl was not called again
