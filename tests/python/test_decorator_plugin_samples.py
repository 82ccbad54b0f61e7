"""The flows of TensorRT's quickly-deployable-plugins sample (``tensorrt.plugin``), written as Kiln's own tests on
its CPU backend with numpy implementations: an element-wise plugin whose @autotune limits its types, an in-place
(aliased) plugin applied twice, a non-zero plugin with a data-dependent output (a size tensor), and a circular
padding plugin with two tactics, built through the network API and through Kiln's ONNX parser, through a plan
loaded in a fresh Runtime."""

from typing import List, Tuple

import numpy as np
import numpy.typing as npt
import pytest

import kiln.tensorrt as trt
import kiln.tensorrt.plugin as trtp
from callback_classes import HostOutputAllocator
from conftest import build_engine, cpu_config, run
from decorator_samples import aliasing_config, circ_pad_onnx, circ_pad_reference

seen = []  # what the implementations were given, for the tests to check


# ---- element-wise add-one, whose autotune offers FP16 only ----

@trtp.register("kiln_qdp::add_one")
def add_one_desc(inp0: trtp.TensorDesc, block_size: int) -> trtp.TensorDesc:
    return inp0.like()


@trtp.autotune("kiln_qdp::add_one")
def add_one_autotune(inp0: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    seen.append(("autotune", inp0.dtype, tuple(inp0.shape), outputs[0].dtype, inp0.format))
    return [trtp.AutoTuneCombination("FP16, FP16")]


@trtp.impl("kiln_qdp::add_one")
def add_one_impl(inp0: trtp.Tensor, block_size: int, outputs: Tuple[trtp.Tensor], stream: int) -> None:
    seen.append(("impl", inp0.dtype, outputs[0].dtype, block_size))
    outputs[0].numpy()[...] = inp0.numpy() + 1


def test_autotune_combinations_decide_the_types_the_plugin_gets(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (10, 3, 4, 4))
    layer = network.add_plugin(trtp.op.kiln_qdp.add_one(x, block_size=256))
    assert layer is not None, logger.errors()
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    del seen[:]
    engine = build_engine(builder, network, logger=logger)
    # @autotune saw the network's types and the concrete shape; the only combination it gave is FP16, so Kiln
    # converts the FP32 input for the plugin and its FP16 output back.
    assert seen[0] == ("autotune", trt.float32, (10, 3, 4, 4), trt.float32, trt.TensorFormat.LINEAR)
    xv = np.random.default_rng(1).integers(0, 10, (10, 3, 4, 4)).astype(np.float32)
    del seen[:]
    y = run(engine, {"x": xv})["y"]
    assert seen == [("impl", trt.float16, trt.float16, 256)]
    np.testing.assert_array_equal(y, xv + 1)


# ---- in-place add: the output aliases the input ----

@trtp.register("kiln_qdp::add_in_place")
def add_in_place_desc(inp0: trtp.TensorDesc, delta: int) -> trtp.TensorDesc:
    return inp0.aliased()


@trtp.autotune("kiln_qdp::add_in_place")
def add_in_place_autotune(inp0, outputs) -> List[trtp.AutoTuneCombination]:
    return [trtp.AutoTuneCombination("FP32, FP32", "LINEAR*HWC"), trtp.AutoTuneCombination("FP32|FP16, FP32|FP16")]


@trtp.impl("kiln_qdp::add_in_place")
def add_in_place_impl(inp0, delta: int, outputs, stream) -> None:
    seen.append((inp0.data_ptr == outputs[0].data_ptr, outputs[0].get_aliased() is inp0))
    inp0.numpy()[...] += delta  # in place: the output is the input's memory


def in_place_network(builder, deltas):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3, 4))
    first = network.add_plugin(trtp.op.kiln_qdp.add_in_place(x, delta=deltas[0]))
    second = network.add_plugin(trtp.op.kiln_qdp.add_in_place(first.get_output(0), delta=deltas[1]))
    second.get_output(0).name = "y"
    network.mark_output(second.get_output(0))
    return network


def test_an_aliased_output_is_written_in_place_by_two_plugins(logger):
    builder = trt.Builder(logger)
    config = aliasing_config(cpu_config(builder))
    engine = build_engine(builder, in_place_network(builder, (2, 4)), config, logger)
    xv = np.ones((2, 3, 4), np.float32)
    del seen[:]
    y = run(engine, {"x": xv})["y"]
    np.testing.assert_array_equal(y, np.full((2, 3, 4), 7, np.float32))  # 1 + 2 + 4
    # Each implementation got one memory for its input and its output, the output aliased to the input.
    assert seen == [(True, True), (True, True)]

    # As the sample runs it: the input's and the output's addresses the same buffer, which ends up added to.
    context = engine.create_execution_context()
    buffer = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    expected = buffer + 6
    assert context.set_tensor_address("x", buffer.ctypes.data) and context.set_tensor_address("y", buffer.ctypes.data)
    assert context.execute_async_v3(0), logger.errors()
    np.testing.assert_array_equal(buffer, expected)


def test_the_register_function_tells_which_input_an_output_aliases():
    descs = [trtp.TensorDesc((2, 3), trt.float32)._freeze(), trtp.TensorDesc((4,), trt.int32)._freeze()]
    aliased = descs[1].aliased()
    assert aliased.get_aliased() is descs[1] and aliased.is_aliased and not descs[1].like().is_aliased
    assert tuple(dim.constant_value() for dim in aliased.shape_expr) == (4,) and aliased.dtype == trt.int32
    with pytest.raises(ValueError, match="cannot be changed"):
        aliased.dtype = trt.float32  # an alias is its input's tensor
    with pytest.raises(ValueError, match="cannot be changed"):
        descs[0].dtype = trt.float16  # an input's description is the network's


# ---- non-zero: a data-dependent output whose extent a size tensor holds ----

@trtp.register("kiln_qdp::non_zero")
def non_zero_desc(inp0: trtp.TensorDesc) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
    upper_bound = inp0.shape_expr[0] * inp0.shape_expr[1]
    count = trtp.size_tensor(upper_bound // 2, upper_bound)
    count.dtype = trt.int64
    return trtp.from_shape_expr((count.expr(), 2), dtype=trt.int32), count


@trtp.autotune("kiln_qdp::non_zero")
def non_zero_autotune(inp0, outputs) -> List[trtp.AutoTuneCombination]:
    return [trtp.AutoTuneCombination("FP32|FP16, INT32, INT64")]


@trtp.impl("kiln_qdp::non_zero")
def non_zero_impl(inp0, outputs, stream) -> None:
    indices, count = outputs
    seen.append((tuple(indices.shape), indices.is_data_dependent, tuple(count.shape)))
    found = np.argwhere(inp0.numpy()).astype(np.int32)
    indices.aliased(found.shape).numpy()[...] = found
    count.numpy()[...] = found.shape[0]


def test_a_size_tensor_gives_a_data_dependent_output_its_extent(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("X", trt.float32, (12, 10))
    layer = network.add_plugin(trtp.op.kiln_qdp.non_zero(x))
    assert layer is not None, logger.errors()
    assert tuple(layer.get_output(0).shape) == (-1, 2) and layer.get_output(1).dtype == trt.int64
    layer.get_output(0).name = "Y"
    network.mark_output(layer.get_output(0))
    engine = build_engine(builder, network, logger=logger)
    assert tuple(engine.get_tensor_shape("Y")) == (-1, 2)

    rng = np.random.default_rng(7)
    for zeros in (0, 37, 120):
        xv = rng.normal(size=(12, 10)).astype(np.float32)
        xv.reshape(-1)[rng.choice(120, zeros, replace=False)] = 0
        context = engine.create_execution_context()
        allocator = HostOutputAllocator()
        assert context.set_output_allocator("Y", allocator)
        assert context.set_tensor_address("X", xv.ctypes.data)
        del seen[:]
        assert context.execute_async_v3(0), logger.errors()
        count = 120 - zeros
        # The implementation saw the extent as data-dependent (-1) and viewed the output with the real one.
        assert seen == [((-1, 2), True, ())]
        assert allocator.shapes["Y"] == (count, 2)
        y = allocator.buffers["Y"][: count * 2 * 4].view(np.int32).reshape(count, 2)
        np.testing.assert_array_equal(y, np.transpose(np.nonzero(xv)))


def test_data_dependent_tensors_are_viewed_through_aliased():
    memory = np.zeros(10, np.int32)
    tensor = trtp.Tensor(memory.ctypes.data, (-1, 2), trt.int32, capacity=10)
    assert tensor.is_data_dependent and tensor.shape == (-1, 2)
    with pytest.raises(ValueError, match="data-dependent"):
        tensor.numel()
    with pytest.raises(ValueError, match="data-dependent"):
        tensor.numpy()
    view = tensor.aliased((4, 2))
    view.numpy()[...] = np.arange(8).reshape(4, 2)
    assert view.get_aliased() is tensor and view.numel() == 8
    np.testing.assert_array_equal(memory[:8], np.arange(8))
    with pytest.raises(ValueError, match="the memory holds 10"):
        tensor.aliased((6, 2))
    with pytest.raises(ValueError, match="arithmetic on a size tensor"):
        trtp.size_tensor(trtp.ShapeExpr(2), trtp.ShapeExpr(4)).expr() + 1


# ---- circular padding with two tactics, through the network API and the ONNX parser ----

tactics_timed = []


@trtp.register("kiln_qdp::circ_pad")
def circ_pad_desc(inp0: trtp.TensorDesc, pads: npt.NDArray[np.int32]) -> trtp.TensorDesc:
    out = inp0.like()
    for i in range(np.size(pads) // 2):
        out.shape_expr[inp0.ndim - i - 1] += int(pads[i * 2] + pads[i * 2 + 1])
    return out


@trtp.autotune("kiln_qdp::circ_pad")
def circ_pad_autotune(inp0: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc]) -> List[trtp.AutoTuneCombination]:
    combination = trtp.AutoTuneCombination()
    combination.pos([0, 1], "FP32|FP16")
    combination.tactics([1, 2])
    return [combination]


def padded_by_indexing(x, pads):
    """Circular padding written as the sample's kernel computes it: each output element reads the input element
    its index maps to, modulo the input's extents (trtp.Shape for the output's extents)."""
    out_dims = trtp.Shape(tuple(x.shape))
    for i in range(len(pads) // 2):
        out_dims[x.ndim - i - 1] += pads[i * 2] + pads[i * 2 + 1]
    before = [0] * (x.ndim - len(pads) // 2) + [pads[2 * i] for i in reversed(range(len(pads) // 2))]
    grids = np.meshgrid(*[np.arange(extent) for extent in out_dims], indexing="ij")
    return x[tuple((g - b) % n for g, b, n in zip(grids, before, x.shape))], out_dims


@trtp.impl("kiln_qdp::circ_pad")
def circ_pad_impl(inp0, pads: npt.NDArray[np.int32], outputs, stream, tactic: int) -> None:
    tactics_timed.append(tactic)
    x = inp0.numpy()
    if tactic == 1:
        p = pads.tolist()
        widths = [(0, 0)] * (inp0.ndim - len(p) // 2) + [(p[2 * i], p[2 * i + 1]) for i in reversed(range(len(p) // 2))]
        outputs[0].numpy()[...] = np.pad(x, widths, mode="wrap")
    elif tactic == 2:
        result, out_dims = padded_by_indexing(x, pads.tolist())
        assert tuple(out_dims) == tuple(outputs[0].shape)
        outputs[0].numpy()[...] = result
    else:
        raise ValueError(f"tactic {tactic} is not one the plugin offered")


@pytest.mark.parametrize("mode", ["inetdef", "onnx"])
def test_circular_padding_through_the_network_api_and_the_onnx_parser(logger, mode):
    shape, pads = (2, 3, 5, 6), np.array((1, 2, 2, 1), np.int32)
    builder = trt.Builder(logger)
    network = builder.create_network()
    if mode == "inetdef":
        x = network.add_input("x", trt.float32, shape)
        layer = network.add_plugin(trtp.op.kiln_qdp.circ_pad(x, pads=pads))
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
    else:
        # A node whose op type is the plugin's name: the parser gives the plugin its input's real rank (4).
        parser = trt.OnnxParser(network, logger)
        assert parser.parse(circ_pad_onnx(shape, pads)), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    assert tuple(network.get_output(0).shape) == (2, 3, 8, 9)
    del tactics_timed[:]
    engine = build_engine(builder, network, logger=logger)
    xv = np.random.default_rng(3).normal(size=shape).astype(np.float32)
    del tactics_timed[:]
    y = run(engine, {"x": xv})["y"]
    np.testing.assert_array_equal(y, circ_pad_reference(xv, pads))
    assert len(tactics_timed) == 1 and tactics_timed[0] in (1, 2)


def test_each_tactic_computes_the_padding():
    x = np.random.default_rng(5).normal(size=(2, 3, 4, 5)).astype(np.float32)
    result, out_dims = padded_by_indexing(x, [1, 2, 2, 1])
    assert out_dims == (2, 3, 7, 8) and isinstance(out_dims, trtp.Shape)
    np.testing.assert_array_equal(result, circ_pad_reference(x, [1, 2, 2, 1]))
