"""``tensorrt.plugin``'s ahead-of-time path on Kiln's CPU backend, where no PTX runs: an @aot_impl plugin builds, the
plan carries its kernel with the launch parameters and arguments as formulas of the tensors' extents, which a
fresh Runtime reads back and evaluates (checked against hand-computed values); running it fails saying why. Also
the symbolic integers (SymInt32, SymIntExprs, KernelLaunchParams) and AutoTuneCombination's expansion."""

from typing import Tuple

import numpy as np
import numpy.typing as npt
import pytest

import kiln.tensorrt as trt
import kiln.tensorrt.plugin as trtp
from conftest import build_engine, cpu_config

FAKE_PTX = ".version 8.0\n.target sm_80\n.address_size 64\n// a stand-in: the CPU backend never loads it\n"
compiled = []  # (tactic, input dtype, output dtype) of each @aot_impl call


def pad_rows_desc(inp0: trtp.TensorDesc, pads: npt.NDArray[np.int32]) -> trtp.TensorDesc:
    out = inp0.like()
    out.shape_expr[-1] += int(pads[0] + pads[1])
    return out


def pad_rows_aot(inp0: trtp.TensorDesc, pads: npt.NDArray[np.int32], outputs: Tuple[trtp.TensorDesc], tactic: int):
    compiled.append((tactic, inp0.dtype, outputs[0].dtype))
    block = 128 if tactic == 3 else 256
    out_dims = outputs[0].shape_expr
    launch = trtp.KernelLaunchParams()
    launch.grid_x = trtp.cdiv(out_dims.numel(), block)
    launch.block_x = block
    launch.shared_mem = inp0.shape_expr[-1] * 4
    args = trtp.SymIntExprs.from_tuple([trtp.SymInt32(int(pads[0])), inp0.shape_expr[0], out_dims[1],
                                        trtp.SymInt32(inp0.shape_expr.numel())])
    return b"pad_rows_kernel", FAKE_PTX, launch, args


def pad_rows_impl(inp0, pads: npt.NDArray[np.int32], outputs, stream):
    outputs[0].numpy()[...] = np.pad(inp0.numpy(), [(0, 0), (int(pads[0]), int(pads[1]))])


# pad_rows: one combination and the default tactic; pad_rows_tuned: the same with tactics 3 and 7 (a builder that
# times tactics runs each, which the CPU backend cannot for a kernel: that one is only configured by hand here).
def autotune_with(tactics):
    def pad_rows_autotune(inp0, outputs):
        return [trtp.AutoTuneCombination("FP32, FP32", "LINEAR", tactics)]

    return pad_rows_autotune


for plugin_id, tactics in (("kiln_aot::pad_rows", None), ("kiln_aot::pad_rows_tuned", [3, 7])):
    trtp.register(plugin_id)(pad_rows_desc)
    trtp.autotune(plugin_id)(autotune_with(tactics))
    trtp.aot_impl(plugin_id)(pad_rows_aot)
    trtp.impl(plugin_id)(pad_rows_impl)


def pad_rows_onnx(aot):
    onnx = pytest.importorskip("onnx")
    helper = onnx.helper
    extra = {} if aot is None else {"aot": aot}
    node = helper.make_node("pad_rows", ["x"], ["y"], plugin_namespace="kiln_aot",
                            pads=helper.make_tensor("pads", onnx.TensorProto.INT32, [2], [2, 1]), **extra)
    graph = helper.make_graph([node], "pad_rows", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]).SerializeToString()


@pytest.mark.parametrize("aot", [None, 0, 1])
def test_an_onnx_nodes_aot_attribute_chooses_the_implementation(logger, aot):
    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(pad_rows_onnx(aot)), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    engine = build_engine(builder, network, logger=logger)
    context = engine.create_execution_context()
    x, y = np.arange(12, dtype=np.float32).reshape(3, 4), np.zeros((3, 7), np.float32)
    assert context.set_tensor_address("x", x.ctypes.data) and context.set_tensor_address("y", y.ctypes.data)
    if aot == 1:  # the plan holds the kernel, which the CPU backend cannot run
        assert not context.execute_async_v3(0)
        assert any("was added with aot=True" in error for error in logger.errors()), logger.errors()
    else:  # the @impl: the plugin has both, and nothing asked for the kernel
        assert context.execute_async_v3(0), logger.errors()
        np.testing.assert_array_equal(y, np.pad(x, [(0, 0), (2, 1)]))


def pad_rows_network(builder, shape=(3, -1)):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, shape)
    layer = network.add_plugin(trtp.op.kiln_aot.pad_rows(x, pads=np.array([2, 1], np.int32)), aot=True)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    return network


def test_the_plan_carries_the_kernel_and_running_it_on_the_cpu_fails(logger):
    builder = trt.Builder(logger)
    network = pad_rows_network(builder)
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (3, 1), (3, 8), (3, 64))
    config.add_optimization_profile(profile)
    del compiled[:]
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    assert compiled and compiled[-1] == (0, trt.float32, trt.float32)  # the combination configured, tactic 0

    # The fresh Runtime's plugin is an ahead-of-time one (from the plan's kernel fields): its run on the CPU backend
    # fails, naming the plugin and the reason.
    engine = trt.Runtime(logger).deserialize_cuda_engine(bytes(plan))
    assert engine is not None, logger.errors()
    context = engine.create_execution_context()
    assert context.set_input_shape("x", (3, 4))
    x, y = np.ones((3, 4), np.float32), np.zeros((3, 7), np.float32)
    assert context.set_tensor_address("x", x.ctypes.data) and context.set_tensor_address("y", y.ctypes.data)
    assert not context.execute_async_v3(0)
    assert any("kiln_aot::pad_rows was added with aot=True" in e and "CPU backend cannot run" in e
               for e in logger.errors()), logger.errors()


@pytest.mark.parametrize("tactic", [3, 7])
def test_the_kernel_fields_give_the_launch_of_any_shape_as_formulas(logger, tactic):
    network = trt.Builder(logger).create_network()
    x = network.add_input("x", trt.float32, (3, -1))
    creator = trt.get_plugin_registry().get_creator("pad_rows_tuned", "1", "kiln_aot")
    plugin = creator.create_plugin("pad_rows", configured_fields(x, tactic), trt.TensorRTPhase.RUNTIME)
    kernel = plugin.kernels.planned
    assert plugin.aot and plugin.tactic == tactic
    assert kernel.name == "pad_rows_kernel" and kernel.image == FAKE_PTX.encode()
    block = 128 if tactic == 3 else 256
    for width in (1, 8, 50):
        params, args = kernel.values([(3, width), (3, width + 3)])
        assert params == [-(-3 * (width + 3) // block), 1, 1, block, 1, 1, width * 4]
        assert args == [2, 3, width + 3, 3 * width]


def configured_fields(x, tactic):
    """The fields of an ahead-of-time pad_rows_tuned plugin configured as a builder configures it (FP32, linear)
    and given `tactic`."""
    plugin = trtp.op.kiln_aot.pad_rows_tuned(x, pads=np.array([2, 1], np.int32)).plugin(aot=True)
    assert plugin.get_output_data_types([trt.float32]) == [trt.float32]
    descs = []
    for dims in ((3, 5), (3, 8)):
        desc = trt.DynamicPluginTensorDesc()
        desc.desc.dims, desc.desc.type, desc.desc.format = dims, trt.float32, trt.TensorFormat.LINEAR
        descs.append(desc)
    assert plugin.supports_format_combination(0, descs, 1) and plugin.supports_format_combination(1, descs, 1)
    plugin.configure_plugin(descs[:1], descs[1:])
    assert plugin.get_valid_tactics() == [3, 7] and plugin.tactic == 3  # the first until the builder sets one
    plugin.set_tactic(tactic)
    return plugin.get_fields_to_serialize()


def test_add_plugin_checks_which_implementations_exist(logger):
    @trtp.register("kiln_aot::jit_only")
    def jit_only_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    @trtp.register("kiln_aot::aot_only")
    def aot_only_desc(x: trtp.TensorDesc) -> trtp.TensorDesc:
        return x.like()

    @trtp.aot_impl("kiln_aot::aot_only")
    def aot_only(x, outputs, tactic):
        return "k", FAKE_PTX, trtp.KernelLaunchParams(), trtp.SymIntExprs(0)

    network = trt.Builder(logger).create_network()
    with pytest.raises(ValueError, match="jit_only has no @tensorrt.plugin.aot_impl"):
        network.add_plugin(trtp.op.kiln_aot.jit_only(network.add_input("x", trt.float32, (2,))), aot=True)
    # Without aot, the plugin runs its @impl, which it lacks: the run fails saying so.
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (2,))
    layer = network.add_plugin(trtp.op.kiln_aot.aot_only(x))
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    context = build_engine(builder, network, logger=logger).create_execution_context()
    xv, y = np.ones(2, np.float32), np.zeros(2, np.float32)
    assert context.set_tensor_address("x", xv.ctypes.data) and context.set_tensor_address("y", y.ctypes.data)
    assert not context.execute_async_v3(0)
    assert any("aot_only has no @tensorrt.plugin.impl function (add it with aot=True" in error
               for error in logger.errors()), logger.errors()
    with pytest.raises(TypeError, match="lacks \\['tactic'\\]"):
        trtp.aot_impl("kiln_aot::jit_only")(lambda x, outputs: None)


def test_kernel_launch_params_and_symbolic_integers():
    launch = trtp.KernelLaunchParams(grid_x=4, block_x=trtp.SymInt32(32))
    assert isinstance(launch.grid_y, trtp.SymInt32) and launch.grid_y.constant_value() == 1
    assert launch.block_x() == 32 and launch.shared_mem() == 0
    with pytest.raises(AttributeError, match="no parameter 'grid_w'"):
        launch.grid_w = 1
    args = trtp.SymIntExprs.from_tuple([1, trtp.ShapeExpr(6) // 4, trtp.SymInt32(5) * 3])
    assert [arg.constant_value() for arg in args] == [1, 1, 15]
    assert all(isinstance(arg, trtp.SymInt32) for arg in args) and isinstance(args, trtp.SymExprs)
    with pytest.raises(ValueError, match="neither an int"):
        args[0] = 1.5
    assert (trtp.ShapeExpr(3) == 3).constant_value() == 1 and (trtp.ShapeExpr(3) < 2).constant_value() == 0


def test_autotune_combinations_expand_dependent_and_independent_options():
    def expand(*args, **kwargs):
        return [(list(map(str, t)), list(map(str, f)), tactics)
                for t, f, tactics in trtp.AutoTuneCombination(*args, **kwargs)._combinations()]

    f32, f16, i32 = str(trt.float32), str(trt.float16), str(trt.int32)
    linear, hwc = str(trt.TensorFormat.LINEAR), str(trt.TensorFormat.HWC)
    # '|' positions choose together; '*' positions combine with every choice; a lone name is fixed.
    assert [t for t, _, _ in expand("FP32|FP16, FP32|FP16, INT32")] == [[f32, f32, i32], [f16, f16, i32]]
    assert sorted(t for t, _, _ in expand("FP32*FP16, FP32|FP16, FP32|FP16")) == sorted(
        [[f32, f32, f32], [f16, f32, f32], [f32, f16, f16], [f16, f16, f16]])
    assert [f for _, f, _ in expand("FP32, FP32", "LINEAR*HWC, LINEAR")] == [[linear, linear], [hwc, linear]]
    assert expand("FP32", tactics=[2, 5])[0][2] == (2, 5)
    combination = trtp.AutoTuneCombination()
    combination.pos([0, 2], "FP16|FP32")
    combination.pos(1, "INT32")
    assert [t for t, _, _ in expand_object(combination)] == [[f16, i32, f16], [f32, i32, f32]]
    with pytest.raises(ValueError, match="already given"):
        combination.pos(1, "FP32")
    with pytest.raises(ValueError, match="different numbers of options"):
        trtp.AutoTuneCombination("FP32|FP16, FP32|FP16|BF16")._combinations()
    with pytest.raises(ValueError, match="mixes"):
        trtp.AutoTuneCombination("FP32|FP16*BF16")._combinations()
    with pytest.raises(ValueError, match="'FP64' is not a data type"):
        trtp.AutoTuneCombination("FP64")._combinations()
    with pytest.raises(ValueError, match="positive integers"):
        trtp.AutoTuneCombination("FP32", tactics=[0])
    with pytest.raises(ValueError, match="2 I/O types but 3 layouts"):
        trtp.AutoTuneCombination("FP32, FP32", "LINEAR, LINEAR, HWC")


def expand_object(combination):
    return [(list(map(str, t)), list(map(str, f)), tactics) for t, f, tactics in combination._combinations()]


def test_shape_is_a_changeable_tuple_of_extents():
    shape = trtp.Shape((2, 3, 4))
    assert shape == (2, 3, 4) and len(shape) == 3 and shape.numel() == 24 and not shape.is_dynamic
    shape[2] += 5
    assert tuple(shape) == (2, 3, 9) and str(shape) == "Shape(2, 3, 9)"
    dynamic = trt.DynamicPluginTensorDesc()
    dynamic.desc.dims, dynamic.min, dynamic.opt, dynamic.max = (-1, 3), (1, 3), (4, 3), (8, 3)
    bounded = trtp.Shape(dynamic)
    assert bounded.is_dynamic and (bounded.min, bounded.opt, bounded.max) == ((1, 3), (4, 3), (8, 3))
    with pytest.raises(ValueError, match="no element count"):
        bounded.numel()
    with pytest.raises(ValueError, match="only for a dynamic shape"):
        shape.opt


def test_a_plan_whose_kernel_fields_are_damaged_is_refused():
    from kiln.tensorrt.plugin import _aot

    plugin_def = trtp.op.kiln_aot.pad_rows

    def fields(launch, args="c 1"):
        return {_aot.KERNEL_FIELD: np.frombuffer(b"k", np.uint8), _aot.IMAGE_FIELD: np.frombuffer(b"x", np.uint8),
                _aot.LAUNCH_FIELD: np.frombuffer(launch.encode(), np.uint8),
                _aot.ARGS_FIELD: np.frombuffer(args.encode(), np.uint8)}

    good = "CEIL_DIV d 1 0 c 256;c 1;c 1;c 256;c 1;c 1;c 0"
    store = _aot.KernelStore.from_fields(plugin_def, fields(good, "PROD d 0 0 d 0 1;c 5"))
    assert store.planned.values([(3, 4), (600, 2)]) == ([3, 1, 1, 256, 1, 1, 0], [12, 5])
    assert _aot.KernelStore.from_fields(plugin_def, {}) is None  # no kernel: a plugin of its @impl
    with pytest.raises(trtp.PluginFunctionError, match="only part of its kernel"):
        _aot.KernelStore.from_fields(plugin_def, {_aot.KERNEL_FIELD: np.zeros(1, np.uint8)})
    with pytest.raises(trtp.PluginFunctionError, match="unknown operation 'POW'"):
        _aot.KernelStore.from_fields(plugin_def, fields(good.replace("CEIL_DIV", "POW")))
    with pytest.raises(trtp.PluginFunctionError, match="word\\(s\\) after its end"):
        _aot.KernelStore.from_fields(plugin_def, fields(good, "c 1 c 2"))
    with pytest.raises(trtp.PluginFunctionError, match="6 launch parameters, not 7"):
        _aot.KernelStore.from_fields(plugin_def, fields(good.rsplit(";", 1)[0]))
    with pytest.raises(ValueError, match="reads axis 1 of tensor 0"):
        store.planned.values([(3,), (4,)])
