"""TensorRT's decorator API for Python plugins (``tensorrt.plugin``: register, impl, op, add_plugin) on Kiln's CPU
backend: plugins defined with it run in a network with built-in layers, through a plan loaded in a fresh Runtime
(which makes the plugin again from the plan's fields), against numpy; output shapes from symbolic expressions;
attributes of every kind through the plan; and the errors of plugins that raise or are misused."""

import numpy as np
import numpy.typing as npt
import pytest
from typing import Tuple

import kiln.tensorrt as trt
import kiln.tensorrt.plugin as trtp
from conftest import build_engine, cpu_config, run

# What the implementations received, for the tests to check (the registry is the process's: plugin IDs are unique
# to this file, under the namespace kiln_dec).
calls = []


@trtp.register("kiln_dec::scaled_add")
def scaled_add_desc(a: trtp.TensorDesc, b: trtp.TensorDesc, alpha: float) -> trtp.TensorDesc:
    return a.like()


@trtp.impl("kiln_dec::scaled_add")
def scaled_add_impl(a, b, alpha: float, outputs, stream):
    calls.append(("scaled_add", alpha, stream, a.shape, a.dtype, outputs[0].data_ptr))
    outputs[0].numpy()[...] = a.numpy() + alpha * np.asarray(b)  # both views: numpy() and __array_interface__


def test_elementwise_plugin_with_built_in_layers_through_a_fresh_runtime(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 3))
    y = network.add_input("y", trt.float32, (2, 3))
    layer = network.add_plugin(trtp.op.kiln_dec.scaled_add(x, y, alpha=0.25))
    assert isinstance(layer, trt.IPluginV3Layer), logger.errors()
    assert tuple(layer.get_output(0).shape) == (2, 3)
    relu = network.add_activation(layer.get_output(0), trt.ActivationType.RELU)
    relu.get_output(0).name = "z"
    network.mark_output(relu.get_output(0))
    plan = bytes(builder.build_serialized_network(network, cpu_config(builder)))
    del network, builder, layer, relu

    # The creator the decorator registered is in Kiln's registry, and the fresh Runtime makes the plugin through it.
    creator = trt.get_plugin_registry().get_creator("scaled_add", "1", "kiln_dec")
    assert creator is not None and [field.name for field in creator.field_names] == ["alpha", "__kiln_input_ranks"]
    engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
    assert engine is not None, logger.errors()
    xv = np.array([[-3, -1, 0], [1, 2, 4]], np.float32)
    yv = np.array([[4, 8, -4], [2, -8, 1]], np.float32)
    del calls[:]
    out = run(engine, {"x": xv, "y": yv})
    np.testing.assert_allclose(out["z"], np.maximum(xv + 0.25 * yv, 0), rtol=1e-6)
    # The attribute came back from the plan; the CPU backend gives stream 0 and host tensors of the right shape.
    assert len(calls) == 1
    name, alpha, stream, shape, dtype, _ = calls[0]
    assert (name, alpha, stream, shape, dtype) == ("scaled_add", 0.25, 0, (2, 3), trt.float32)


def test_a_plugin_output_that_is_a_network_output_is_written_in_place(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4,))
    layer = network.add_plugin(trtp.op.kiln_dec.scaled_add(x, x, alpha=-2.0))
    layer.get_output(0).name = "z"
    network.mark_output(layer.get_output(0))
    engine = build_engine(builder, network, logger=logger)
    context = engine.create_execution_context()
    xv = np.array([1, 2, 3, 4], np.float32)
    z = np.zeros(4, np.float32)
    context.set_tensor_address("x", xv.ctypes.data)
    context.set_tensor_address("z", z.ctypes.data)
    del calls[:]
    assert context.execute_async_v3(0), logger.errors()
    np.testing.assert_array_equal(z, -xv)  # x + (-2) * x
    assert calls[0][5] == z.ctypes.data  # the implementation's output tensor is the caller's buffer


# Two outputs of other shapes: the concatenation of a and b along `axis`, and every `stride`-th element of a along
# the last axis (as a[..., ::stride]): its extent is cdiv(a's, stride).
@trtp.register("kiln_dec::concat_stride")
def concat_stride_desc(
    a: trtp.TensorDesc, b: trtp.TensorDesc, axis: int, stride: int = 2
) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
    joined = a.like()
    joined.shape_expr[axis] = a.shape_expr[axis] + b.shape_expr[axis]
    strided = list(a.shape_expr)
    strided[-1] = trtp.cdiv(a.shape_expr[-1], stride)
    return joined, trtp.from_shape_expr(strided, dtype=a.dtype)


@trtp.impl("kiln_dec::concat_stride")
def concat_stride_impl(a, b, axis: int, stride: int, outputs, stream):
    joined, strided = (tensor.numpy() for tensor in outputs)
    joined[...] = np.concatenate([a.numpy(), b.numpy()], axis=axis)
    strided[...] = a.numpy()[..., ::stride]


def test_shape_expressions_give_output_shapes_static_and_dynamic(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    a = network.add_input("a", trt.float32, (2, -1))
    b = network.add_input("b", trt.float32, (2, -1))
    layer = network.add_plugin(trtp.op.kiln_dec.concat_stride(a, b, axis=1, stride=3))
    assert layer is not None, logger.errors()
    assert layer.num_outputs == 2
    assert tuple(layer.get_output(0).shape) == (2, -1)  # symbolic until the input shapes are known
    for index, name in enumerate(("joined", "strided")):
        layer.get_output(index).name = name
        network.mark_output(layer.get_output(index))
    profile = builder.create_optimization_profile()
    profile.set_shape("a", (2, 1), (2, 5), (2, 8))
    profile.set_shape("b", (2, 1), (2, 4), (2, 8))
    config = cpu_config(builder)
    config.add_optimization_profile(profile)
    engine = build_engine(builder, network, config, logger)

    for width_a, width_b in ((5, 4), (7, 1)):
        av = np.arange(2 * width_a, dtype=np.float32).reshape(2, width_a)
        bv = -np.arange(2 * width_b, dtype=np.float32).reshape(2, width_b)
        out = run(engine, {"a": av, "b": bv})
        assert out["joined"].shape == (2, width_a + width_b)
        assert out["strided"].shape == (2, -(-width_a // 3))  # ceil(width_a / 3): 2 for 5, 3 for 7
        np.testing.assert_array_equal(out["joined"], np.hstack([av, bv]))
        np.testing.assert_array_equal(out["strided"], av[:, [j for j in range(width_a) if j % 3 == 0]])

    # Static shapes give constant expressions; the default of `stride` (2) applies when the call omits it.
    network2 = builder.create_network()
    a2 = network2.add_input("a", trt.float32, (3, 4, 5))
    b2 = network2.add_input("b", trt.float32, (3, 6, 5))
    layer2 = network2.add_plugin(trtp.op.kiln_dec.concat_stride(a2, b2, axis=1))
    assert tuple(layer2.get_output(0).shape) == (3, 10, 5)
    assert tuple(layer2.get_output(1).shape) == (3, 4, 3)


# Every kind of attribute, through the plan: the implementation records what it got.
@trtp.register("kiln_dec::attribute_kinds")
def attribute_kinds_desc(
    x: trtp.TensorDesc,
    count: int,
    ratio: float,
    flag: bool,
    label: str,
    blob: bytes,
    ints: npt.NDArray[np.int32],
    halves: npt.NDArray[np.float16],
    mask: npt.NDArray[np.bool_],
) -> trtp.TensorDesc:
    return trtp.from_shape_expr(x.shape_expr, dtype=trt.int32)  # a type other than the input's


@trtp.impl("kiln_dec::attribute_kinds")
def attribute_kinds_impl(x, count, ratio, flag, label, blob, ints, halves, mask, outputs, stream, tactic):
    calls.append(dict(count=count, ratio=ratio, flag=flag, label=label, blob=blob, ints=ints, halves=halves,
                      mask=mask, tactic=tactic))
    outputs[0].numpy()[...] = (x.numpy() * count).astype(np.int32)


def test_attributes_of_every_kind_round_trip_through_the_plan(logger):
    given = dict(count=-7, ratio=1.0 / 3.0, flag=True, label="Grüße", blob=b"\x00\xffk",
                 ints=np.array([1, -2, 2**31 - 1], np.int32), halves=np.array([0.5, -1.5], np.float16),
                 mask=np.array([True, False, True]))
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (3,))
    layer = network.add_plugin(trtp.op.kiln_dec.attribute_kinds(x, **given))
    assert layer is not None, logger.errors()
    assert layer.get_output(0).dtype == trt.int32
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = build_engine(builder, network, logger=logger)
    del calls[:]
    out = run(engine, {"x": np.array([1, 2, 3], np.float32)})
    np.testing.assert_array_equal(out["y"], [-7, -14, -21])
    got = calls[0]
    for name in ("count", "ratio", "flag", "label", "blob"):
        assert got[name] == given[name] and type(got[name]) is type(given[name]), name
    for name in ("ints", "halves", "mask"):
        assert got[name].dtype == given[name].dtype, name
        np.testing.assert_array_equal(got[name], given[name])
    assert got["tactic"] == 0


@trtp.register("kiln_dec::fails")
def fails_desc(x: trtp.TensorDesc, where: str) -> trtp.TensorDesc:
    if where == "shape":
        raise ValueError("no shape for you")
    return x.like()


@trtp.impl("kiln_dec::fails")
def fails_impl(x, where: str, outputs, stream):
    if where == "impl":
        raise ZeroDivisionError("impl went wrong")
    outputs[0].numpy()[...] = x.numpy()


def fails_network(builder, where):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2,))
    layer = network.add_plugin(trtp.op.kiln_dec.fails(x, where=where))
    if layer is not None:
        layer.get_output(0).name = "y"
        network.mark_output(layer.get_output(0))
    return network, layer


def plugin_errors(logger):
    named = 'plugin fails (version 1, namespace "kiln_dec")'
    return "\n".join(message for message in logger.errors() if named in message)


def test_a_raising_shape_function_refuses_the_layer_with_the_message(logger):
    _, layer = fails_network(trt.Builder(logger), "shape")
    assert layer is None
    assert "the @register function of kiln_dec::fails raised ValueError: no shape for you" in plugin_errors(logger)


def test_a_raising_impl_fails_the_run_with_the_message(logger):
    builder = trt.Builder(logger)
    network, _ = fails_network(builder, "impl")
    engine = build_engine(builder, network, logger=logger)
    context = engine.create_execution_context()
    xv, y = np.ones(2, np.float32), np.zeros(2, np.float32)
    context.set_tensor_address("x", xv.ctypes.data)
    context.set_tensor_address("y", y.ctypes.data)
    assert not context.execute_async_v3(0)
    assert "the @impl function of kiln_dec::fails raised ZeroDivisionError: impl went wrong" in plugin_errors(logger)
    # The same plugin that does not raise runs (the error is the function's, not the plugin's state).
    assert run(build_engine(builder, fails_network(builder, "none")[0]), {"x": xv})["y"].tolist() == [1, 1]


def test_calls_that_do_not_match_the_signature_raise_at_once(logger):
    network = trt.Builder(logger).create_network()
    x = network.add_input("x", trt.float32, (2,))
    with pytest.raises(TypeError, match="kiln_dec::scaled_add takes 2 input tensors"):
        trtp.op.kiln_dec.scaled_add(x, alpha=1.0)
    with pytest.raises(TypeError, match="attribute 'alpha' must be float, not str"):
        trtp.op.kiln_dec.scaled_add(x, x, alpha="1")
    with pytest.raises(TypeError, match="attribute 'alpha' was not given"):
        trtp.op.kiln_dec.scaled_add(x, x)
    with pytest.raises(TypeError, match="has no attribute 'beta'"):
        trtp.op.kiln_dec.scaled_add(x, x, alpha=1.0, beta=2)
    with pytest.raises(TypeError, match="input 'b' must be an ITensor, not ndarray"):
        trtp.op.kiln_dec.scaled_add(x, np.ones(2), alpha=1.0)
    with pytest.raises(AttributeError, match="no plugin kiln_dec::nothing"):
        trtp.op.kiln_dec.nothing
    with pytest.raises(TypeError, match="add_plugin takes tensorrt.plugin.op"):
        network.add_plugin(x)


def test_decorators_check_their_functions():
    with pytest.raises(ValueError, match="namespace::name"):
        trtp.register("no_namespace")
    with pytest.raises(TypeError, match="'n' needs a type annotation"):
        @trtp.register("kiln_dec::unannotated")
        def unannotated(x: trtp.TensorDesc, n) -> trtp.TensorDesc:
            return x.like()
    with pytest.raises(TypeError, match="attribute 'items' is annotated"):
        @trtp.register("kiln_dec::list_attribute")
        def list_attribute(x: trtp.TensorDesc, items: list) -> trtp.TensorDesc:
            return x.like()
    with pytest.raises(TypeError, match="return annotation"):
        @trtp.register("kiln_dec::no_return")
        def no_return(x: trtp.TensorDesc) -> int:
            return x.like()
    with pytest.raises(ValueError, match="already registered"):
        trtp.register("kiln_dec::scaled_add")(scaled_add_desc)
    with pytest.raises(TypeError, match="takes \\['gamma'\\], which @register does not declare"):
        trtp.impl("kiln_dec::scaled_add")(lambda a, b, gamma, outputs, stream: None)
    with pytest.raises(ValueError, match="no plugin of that ID"):
        trtp.impl("kiln_dec::undefined")(lambda outputs, stream: None)


def test_shape_expressions_outside_a_shape_call():
    three, four = trtp.ShapeExpr(3), trtp.ShapeExpr(4)
    assert ((three + 4) * 2 - 1).constant_value() == 13  # constants fold in Python
    assert (four // 3).constant_value() == 1 and trtp.cdiv(four, 3).constant_value() == 2
    assert (trtp.max(three, 4).constant_value(), trtp.min(three, four).constant_value()) == (4, 3)
    assert (10 - three).constant_value() == 7 and (10 // four).constant_value() == 2
    fake = trtp.ShapeExpr()
    assert (fake + 1).is_fake and (three * fake).is_fake
    with pytest.raises(RuntimeError, match="fake ShapeExpr"):
        fake.is_constant
    with pytest.raises(ValueError, match="both are ints"):
        trtp.cdiv(4, 2)
    shape = trtp.ShapeExprs.from_tuple((2, three, 5))
    assert shape.numel().constant_value() == 30 and len(shape[1:]) == 2
    desc = trtp.TensorDesc((2, 3), trt.float16)
    assert desc.ndim == 2 and desc.like().dtype == trt.float16 and desc.like().shape_expr is not desc.shape_expr


def test_tensors_are_host_views_on_the_cpu_backend_and_device_interfaces_otherwise():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    host = trtp.Tensor(data.ctypes.data, (2, 3), trt.float32)
    assert host.numpy().base is not None and np.shares_memory(host.numpy(), data)
    assert not hasattr(host, "__cuda_array_interface__") and host.numel() == 6 and host.ndim == 2
    device = trtp.Tensor(0x7000, (2, 3), trt.float16, on_device=True)
    interface = device.__cuda_array_interface__
    assert (interface["data"], interface["shape"], interface["typestr"]) == ((0x7000, False), (2, 3), "<f2")
    assert not hasattr(device, "__array_interface__")  # numpy must never read device memory
    with pytest.raises(TypeError, match="GPU memory has no numpy view"):
        device.numpy()
    with pytest.raises(TypeError, match="has no numpy view"):
        trtp.Tensor(data.ctypes.data, (2,), trt.bfloat16).numpy()


def test_the_cuda_backends_enqueue_hands_the_impl_device_tensors_and_the_stream():
    # The plugin the registry's creator makes when a plan is loaded, called as the CUDA backend calls it (the
    # addresses are never read: the implementation only looks at what it is given).
    seen = []

    @trtp.register("kiln_dec::device_probe")
    def device_probe_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    @trtp.impl("kiln_dec::device_probe")
    def device_probe_impl(x, outputs, stream):
        interface = x.__cuda_array_interface__
        seen.append((x.on_device, interface["data"][0], interface["stream"], outputs[0].data_ptr, stream))

    creator = trt.get_plugin_registry().get_creator("device_probe", "1", "kiln_dec")
    plugin = creator.create_plugin("probe", trt.PluginFieldCollection(), trt.TensorRTPhase.RUNTIME)
    desc = trt.PluginTensorDesc()
    desc.dims, desc.type = (4,), trt.float32
    plugin.enqueue([desc], [desc], [0x1000], [0x2000], 0, 77)
    assert seen == [(True, 0x1000, 77, 0x2000, 77)]


@trtp.register("kiln_dec::dlpack_negate")
def dlpack_negate_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
    return x.like()


@trtp.impl("kiln_dec::dlpack_negate")
def dlpack_negate_impl(x, outputs, stream):
    # DLPack's views: numpy's from_dlpack gives a read-only view of the input; the output is written through numpy().
    outputs[0].numpy()[...] = -np.from_dlpack(x)


def test_an_impl_reads_its_input_through_dlpack_in_a_run(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2, 2))
    layer = network.add_plugin(trtp.op.kiln_dec.dlpack_negate(x))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = build_engine(builder, network, logger=logger)
    xv = np.array([[1.5, -2], [0, 7]], np.float32)
    np.testing.assert_array_equal(run(engine, {"x": xv})["y"], -xv)


def test_dlpack_views_host_tensors_and_refuses_what_it_cannot_give():
    data = np.arange(6, dtype=np.int32).reshape(3, 2)
    tensor = trtp.Tensor(data.ctypes.data, (3, 2), trt.int32)
    assert tensor.__dlpack_device__() == (1, 0)  # kDLCPU
    view = np.from_dlpack(tensor)
    assert view.dtype == np.int32 and view.shape == (3, 2) and np.shares_memory(view, data)
    np.testing.assert_array_equal(view, data)
    assert tensor.__dlpack__(stream=None) is not None  # a capsule no consumer takes is freed with it
    with pytest.raises(BufferError, match="copy=True"):
        tensor.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="cannot be exported"):
        tensor.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="DLPack has no type"):
        trtp.Tensor(data.ctypes.data, (2,), trt.fp8).__dlpack__()
    with pytest.raises(ValueError, match="data-dependent extent: view it with aliased"):
        trtp.Tensor(data.ctypes.data, (-1,), trt.int32).__dlpack__()  # -1: an extent the plugin has yet to give


def test_the_cuda_array_interface_carries_the_plugins_stream():
    # Version 3's stream entry: the handle the plugin runs on, with handle 0 (the legacy default stream) written as
    # 1, since the interface forbids 0; no stream known, no entry value.
    def interface(stream):
        return trtp.Tensor(0x7000, (4,), trt.float32, on_device=True, stream=stream).__cuda_array_interface__

    assert interface(0x5a5a)["stream"] == 0x5a5a and interface(0)["stream"] == 1 and interface(None)["stream"] is None
    assert interface(3)["version"] == 3 and interface(3)["strides"] is None


@trtp.register("kiln_dec::bad_autotune")
def bad_autotune_desc(x: trtp.TensorDesc, what: str) -> trtp.TensorDesc:
    return x.like()


@trtp.autotune("kiln_dec::bad_autotune")
def bad_autotune(x, what: str, outputs):
    if what == "raise":
        raise KeyError("no combinations today")
    if what == "three":
        return [trtp.AutoTuneCombination("FP32, FP32, FP32")]
    return "FP32, FP32"


@trtp.impl("kiln_dec::bad_autotune")
def bad_autotune_impl(x, outputs, stream):
    outputs[0].numpy()[...] = x.numpy()


@pytest.mark.parametrize("what, message", [
    ("raise", "the @autotune function of kiln_dec::bad_autotune raised KeyError: 'no combinations today'"),
    ("three", "which gives 3 I/O types; the plugin has 2 inputs and outputs"),
    ("text", "returned str, not a list of AutoTuneCombination"),
])
def test_an_autotune_function_that_fails_fails_the_build_with_its_message(logger, what, message):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2,))
    layer = network.add_plugin(trtp.op.kiln_dec.bad_autotune(x, what=what))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    assert builder.build_serialized_network(network, cpu_config(builder)) is None
    assert any(message in error for error in logger.errors()), logger.errors()
