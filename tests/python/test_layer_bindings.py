"""Every INetworkDefinition add* call Kiln implements in C++ has its Python binding under TensorRT's Python name, and
every layer comes back as its own class; then networks made through those bindings, built and run on the CPU
backend and checked against numpy.

Which add* calls Kiln implements comes from C++: INetworkDefinition's declarations (tests/dialects/
gen_network_surface.py's list, which the network surface test compiles against include/NvInferNetwork.h), of which
Kiln implements those that return a class it has: include/kiln/LayerInterfaces.h lists the layer classes (the
library's own kinds are checked against it when it compiles) and the network's other objects, and the extension
gives both lists (kiln._tensorrt._layer_interfaces and _network_objects). So a layer kind added in C++ without a binding fails here."""

import os
import re

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import build_engine, run
from kiln import _tensorrt as extension

SURFACE = os.path.join(os.path.dirname(__file__), "..", "dialects", "gen_network_surface.py")

# TensorRT's Python names that are not the C++ name in snake case.
PYTHON_NAMES = {
    "addElementWise": "add_elementwise",
    "addSoftMax": "add_softmax",
    "addTopK": "add_topk",
    "addParametricReLU": "add_parametric_relu",
}
# TensorRT's Python API has one add_* of its own: add_plugin, for plugins of the tensorrt.plugin decorators.
PYTHON_ONLY = {"add_plugin"}

RNG = np.random.default_rng(11)


def declared_adders():
    """INetworkDefinition's add* calls, each with the class it returns."""
    with open(SURFACE) as surface:
        return dict(re.findall(r"^INetworkDefinition (add\w+) (\w+)\*\(", surface.read(), re.M))


def implemented_adders():
    """The add* calls whose result Kiln has: an input tensor, a listed layer class or a listed network object."""
    classes = set(extension._layer_interfaces.values()) | set(extension._network_objects) | {"ITensor"}
    return {name for name, returned in declared_adders().items() if returned in classes}


def python_name(adder):
    return PYTHON_NAMES.get(adder) or re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", adder).lower()


def test_the_lists_name_only_bound_classes():
    assert len(extension._layer_interfaces) > 30
    for layer_type, name in extension._layer_interfaces.items():
        assert isinstance(layer_type, trt.LayerType)
        assert issubclass(getattr(trt, name), trt.ILayer), name
    for name in extension._network_objects:
        assert hasattr(trt, name), name


def test_python_binds_exactly_the_add_calls_kiln_implements():
    declared = declared_adders()
    implemented = implemented_adders()
    # The lists are read: refused calls are declared and left out, supported ones found.
    assert {"addRaggedSoftMax", "addDynamicQuantize", "addEinsum"} <= set(declared) - implemented
    assert {"addConvolutionNd", "addIfConditional", "addAttention", "addSqueeze", "addGatherV2", "addLRN",
            "addQuantize"} <= implemented
    expected = {python_name(adder) for adder in implemented}
    bound = {name for name in dir(trt.INetworkDefinition) if name.startswith("add_")} - PYTHON_ONLY
    assert sorted(expected - bound) == [], "implemented in C++ but not bound"
    assert sorted(bound - expected) == [], "bound but refused in C++ (or named unlike TensorRT)"


def new_network():
    builder = trt.Builder(trt.Logger())
    return builder, builder.create_network()


def constant(network, values):
    values = np.array(values)  # a C-contiguous copy that keeps a scalar 0-D
    return network.add_constant(values.shape, trt.Weights(values)).get_output(0)


def test_every_layer_comes_back_as_the_class_its_type_lists():
    _, network = new_network()
    x = network.add_input("x", trt.float32, (1, 2, 3, 4))
    index = network.add_input("index", trt.int32, (1, 2, 3, 4))
    flat = network.add_input("flat", trt.float32, (3, 4))
    made = [
        network.add_resize(x),
        network.add_padding_nd(x, (1, 1), (0, 0)),
        network.add_scale(x, trt.ScaleMode.UNIFORM, shift=np.ones(1, np.float32)),
        network.add_scale_nd(x, trt.ScaleMode.UNIFORM, None, np.ones(1, np.float32), None, 1),
        network.add_deconvolution_nd(x, 2, (1, 1), np.ones(4, np.float32)),
        network.add_parametric_relu(x, constant(network, np.ones((1, 2, 1, 1), np.float32))),
        network.add_select(constant(network, np.ones((1, 2, 3, 4), bool)), x, x),
        network.add_gather_v2(x, index, trt.GatherMode.ELEMENT),
        network.add_scatter(x, index, x, trt.ScatterMode.ELEMENT),
        network.add_one_hot(index, constant(network, np.array([0, 1], np.float32)), constant(network, np.int32(3)), -1),
        network.add_non_zero(x),
        network.add_non_zero(x, trt.int32),
        network.add_cumulative(x, constant(network, np.int32(3)), trt.CumulativeOperation.SUM, False, True),
        network.add_reverse_sequence(flat, constant(network, np.array([1, 2, 3, 3], np.int32))),
        network.add_normalization(x, constant(network, np.ones((1, 1, 1, 4), np.float32)),
                                  constant(network, np.zeros((1, 1, 1, 4), np.float32)), 1 << 3),
        network.add_normalization_v2(x, constant(network, np.ones((1, 1, 1, 4), np.float32)),
                                     constant(network, np.zeros((1, 1, 1, 4), np.float32)), 1 << 3),
        network.add_fill((2, 3), trt.FillOperation.LINSPACE),
        network.add_fill((2, 3), trt.FillOperation.RANDOM_UNIFORM, trt.float32),
        network.add_squeeze(x, constant(network, np.array([0], np.int64))),
        network.add_unsqueeze(flat, constant(network, np.array([0], np.int64))),
        network.add_topk(flat, trt.TopKOperation.MAX, 2, 1 << 1, trt.int64),
    ]
    assert all(layer is not None for layer in made)
    assert made[-1].indices_type == trt.int64 and made[11].indices_type == trt.int32
    assert made[15].is_v2 and not made[14].is_v2
    assert made[0].num_ranks == 1
    with pytest.raises(RuntimeError, match="one rank"):
        made[0].num_ranks = 2
    # A fill's alpha and beta are ints where they were set as ints (for INT64 outputs), as in TensorRT.
    fill = made[16]
    fill.alpha = 3
    assert fill.is_alpha_beta_int64() and fill.alpha == 3 and isinstance(fill.alpha, int)
    fill.beta = 0.5
    assert not fill.is_alpha_beta_int64() and isinstance(fill.alpha, float) and fill.beta == 0.5
    for position in range(network.num_layers):
        layer = network[position]
        assert type(layer).__name__ == extension._layer_interfaces[layer.type], layer.type
    assert {type(layer).__name__ for layer in made} >= {"ISqueezeLayer", "IUnsqueezeLayer", "IParametricReLULayer"}


def test_scale_padding_and_deconvolution_match_numpy():
    builder, network = new_network()
    x = network.add_input("x", trt.float32, (1, 2, 2, 3))
    scale, shift = np.array([2.0, -1.0], np.float32), np.array([0.5, 1.0], np.float32)
    scaled = network.add_scale(x, trt.ScaleMode.CHANNEL, shift=shift, scale=scale)
    assert scaled.mode == trt.ScaleMode.CHANNEL and scaled.channel_axis == 1
    padded = network.add_padding_nd(scaled.get_output(0), (1, 0), (0, 2))
    kernel = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    bias = np.array([0.25, -0.5, 1.0], np.float32)
    deconvolution = network.add_deconvolution_nd(padded.get_output(0), 3, (2, 2), kernel, bias)
    assert deconvolution.num_output_maps == 3 and deconvolution.kernel_size_nd == (2, 2)
    deconvolution.get_output(0).name = "y"
    network.mark_output(deconvolution.get_output(0))

    xv = RNG.standard_normal((1, 2, 2, 3)).astype(np.float32)
    got = run(build_engine(builder, network), {"x": xv})["y"]

    padded_v = np.pad(xv * scale.reshape(1, 2, 1, 1) + shift.reshape(1, 2, 1, 1), ((0, 0), (0, 0), (1, 0), (0, 2)))
    h, w = padded_v.shape[2:]
    expected = np.zeros((1, 3, h + 1, w + 1), np.float32) + bias.reshape(1, 3, 1, 1)
    for a in range(2):
        for b in range(2):
            expected[:, :, a : a + h, b : b + w] += np.einsum("nchw,ck->nkhw", padded_v, kernel[:, :, a, b])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_resize_select_and_parametric_relu_match_numpy():
    builder, network = new_network()
    x = network.add_input("x", trt.float32, (1, 2, 2, 2))
    resize = network.add_resize(x)
    resize.scales = [1.0, 1.0, 2.0, 2.0]
    resize.resize_mode = trt.InterpolationMode.NEAREST
    slopes = np.array([0.1, 0.5], np.float32).reshape(1, 2, 1, 1)
    leaky = network.add_parametric_relu(resize.get_output(0), constant(network, slopes))
    zero = constant(network, np.zeros((1, 1, 1, 1), np.float32))
    positive = network.add_elementwise(resize.get_output(0), zero, trt.ElementWiseOperation.GREATER)
    chosen = network.add_select(positive.get_output(0), resize.get_output(0), leaky.get_output(0))
    chosen.get_output(0).name = "y"
    network.mark_output(chosen.get_output(0))
    leaky.get_output(0).name = "leaky"
    network.mark_output(leaky.get_output(0))

    xv = RNG.standard_normal((1, 2, 2, 2)).astype(np.float32)
    outputs = run(build_engine(builder, network), {"x": xv})

    upsampled = xv.repeat(2, axis=2).repeat(2, axis=3)
    leaky_v = np.where(upsampled >= 0, upsampled, slopes * upsampled)
    np.testing.assert_allclose(outputs["leaky"], leaky_v, rtol=1e-6)
    np.testing.assert_allclose(outputs["y"], np.where(upsampled > 0, upsampled, leaky_v), rtol=1e-6)


def test_gather_scatter_one_hot_and_cumulative_match_numpy():
    builder, network = new_network()
    data = network.add_input("data", trt.float32, (2, 4))
    index = network.add_input("index", trt.int32, (2, 3))
    gathered = network.add_gather_v2(data, index, trt.GatherMode.ELEMENT)
    gathered.axis = 1
    scattered = network.add_scatter(data, index, gathered.get_output(0), trt.ScatterMode.ELEMENT)
    scattered.axis = 1
    off_on = constant(network, np.array([-1.0, 3.0], np.float32))
    one_hot = network.add_one_hot(index, off_on, constant(network, np.int32(4)), -1)
    summed = network.add_cumulative(data, constant(network, np.int32(1)), trt.CumulativeOperation.SUM, True, False)
    for name, layer in (("gathered", gathered), ("scattered", scattered), ("one_hot", one_hot), ("sums", summed)):
        layer.get_output(0).name = name
        network.mark_output(layer.get_output(0))

    dv = RNG.standard_normal((2, 4)).astype(np.float32)
    # Distinct indices per row, so that the scatter writes each element at most once.
    iv = np.array([[3, 0, 1], [2, 3, 0]], np.int32)
    got = run(build_engine(builder, network), {"data": dv, "index": iv})

    gathered_v = np.take_along_axis(dv, iv, axis=1)
    np.testing.assert_array_equal(got["gathered"], gathered_v)
    scattered_v = dv.copy()
    np.put_along_axis(scattered_v, iv, gathered_v, axis=1)
    np.testing.assert_array_equal(got["scattered"], scattered_v)
    np.testing.assert_array_equal(got["one_hot"], np.where(np.eye(4, dtype=bool)[iv], 3.0, -1.0))
    np.testing.assert_allclose(got["sums"], np.cumsum(dv, axis=1) - dv, rtol=1e-6, atol=1e-6)


def test_quantize_and_dequantize_match_numpy():
    """Per-channel INT8 (numpy's round is half to even, as ONNX and TensorRT round) and per-tensor FP8, whose
    round trip is checked against values FP8 E4M3FN holds exactly."""
    builder, network = new_network()
    x = network.add_input("x", trt.float32, (2, 3))
    scales = constant(network, np.array([0.5, 1.0, 2.0], np.float32))
    q = network.add_quantize(x, scales)
    assert isinstance(q, trt.IQuantizeLayer) and q.to_type == trt.int8 and q.axis == -1
    q.axis = 1
    q.get_output(0).name = "q"
    network.mark_output(q.get_output(0))
    dq = network.add_dequantize(q.get_output(0), scales, trt.float32)
    assert isinstance(dq, trt.IDequantizeLayer) and dq.to_type == trt.DataType.FLOAT
    dq.axis = 1
    one = constant(network, np.float32(1.0))
    q8 = network.add_quantize(x, one, trt.DataType.FP8)
    assert q8.get_output(0).dtype == trt.fp8
    dq8 = network.add_dequantize(q8.get_output(0), one)
    for name, layer in (("y", dq), ("y8", dq8)):
        layer.get_output(0).name = name
        network.mark_output(layer.get_output(0))

    xv = np.array([[1.25, -0.75, 300.0], [-100.0, 2.5, 3.0]], np.float32)
    got = run(build_engine(builder, network), {"x": xv})
    qv = np.clip(np.round(xv / np.array([0.5, 1.0, 2.0], np.float32)), -128, 127)
    np.testing.assert_array_equal(got["q"], qv.astype(np.int8))
    np.testing.assert_array_equal(got["y"], qv * np.array([0.5, 1.0, 2.0], np.float32))
    # FP8 holds 1.25, -0.75, 2.5 and 3 exactly; -100 is the tie between -96 and -104 (steps of 8 there), which goes
    # to the even -96; 300 lies between 288 and 320 (steps of 32), nearest 288.
    np.testing.assert_array_equal(got["y8"], np.array([[1.25, -0.75, 288.0], [-96.0, 2.5, 3.0]], np.float32))


def test_squeeze_unsqueeze_and_normalization_match_numpy():
    builder, network = new_network()
    x = network.add_input("x", trt.float32, (1, 3, 1, 4))
    squeezed = network.add_squeeze(x, constant(network, np.array([0, 2], np.int64)))
    assert squeezed.get_output(0).shape == (3, 4)
    scale = np.array([[1.0, 2.0, 0.5, -1.0]], np.float32)
    bias = np.array([[0.0, 1.0, -1.0, 0.5]], np.float32)
    norm = network.add_normalization(squeezed.get_output(0), constant(network, scale), constant(network, bias), 1 << 1)
    norm.epsilon = 1e-3
    unsqueezed = network.add_unsqueeze(norm.get_output(0), constant(network, np.array([1], np.int64)))
    assert unsqueezed.get_output(0).shape == (3, 1, 4)
    unsqueezed.get_output(0).name = "y"
    network.mark_output(unsqueezed.get_output(0))

    xv = RNG.standard_normal((1, 3, 1, 4)).astype(np.float32)
    got = run(build_engine(builder, network), {"x": xv})["y"]

    rows = xv.reshape(3, 4)
    centered = rows - rows.mean(axis=1, keepdims=True)
    expected = centered / np.sqrt(centered.var(axis=1, keepdims=True) + 1e-3) * scale + bias
    np.testing.assert_allclose(got, expected.reshape(3, 1, 4), rtol=1e-4, atol=1e-5)


def test_lrn_matches_numpy():
    builder, network = new_network()
    x = network.add_input("x", trt.float32, (2, 7, 3, 4))
    lrn = network.add_lrn(x, window=3, alpha=1.0, beta=1.0, k=0.1)
    assert isinstance(lrn, trt.ILRNLayer) and lrn.type == trt.LayerType.LRN
    assert (lrn.window_size, lrn.alpha, lrn.beta, lrn.k) == (3, 1.0, 1.0, np.float32(0.1))
    lrn.window_size, lrn.alpha, lrn.beta, lrn.k = 5, 2e-3, 0.75, 2.0
    lrn.window_size = 4  # outside TensorRT's range: refused, the window stays 5
    assert lrn.window_size == 5
    lrn.get_output(0).name = "y"
    network.mark_output(lrn.get_output(0))

    xv = RNG.standard_normal((2, 7, 3, 4)).astype(np.float32) * 4
    got = run(build_engine(builder, network), {"x": xv})["y"]

    # ONNX's formula: the squares of channels c - 2 to c + 2 that exist, alpha divided by the window.
    squares = np.pad(xv.astype(np.float64) ** 2, ((0, 0), (2, 2), (0, 0), (0, 0)))
    sums = sum(squares[:, c : c + 7] for c in range(5))
    expected = xv / (2.0 + np.float32(2e-3) / 5 * sums) ** 0.75
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_if_conditional_takes_the_branch_its_condition_says():
    builder, network = new_network()
    condition = network.add_input("condition", trt.bool, ())
    x = network.add_input("x", trt.float32, (3,))
    conditional = network.add_if_conditional()
    conditional.name = "choice"
    condition_layer = conditional.set_condition(condition)
    assert isinstance(condition_layer, trt.IConditionLayer) and condition_layer.conditional.name == "choice"
    branch_input = conditional.add_input(x)
    assert isinstance(branch_input, trt.IIfConditionalInputLayer)
    inside = branch_input.get_output(0)
    squared = network.add_elementwise(inside, inside, trt.ElementWiseOperation.PROD)
    doubled = network.add_elementwise(x, constant(network, np.array([2.0], np.float32)), trt.ElementWiseOperation.PROD)
    output = conditional.add_output(squared.get_output(0), doubled.get_output(0))
    assert isinstance(output, trt.IIfConditionalOutputLayer)
    output.get_output(0).name = "y"
    network.mark_output(output.get_output(0))

    engine = build_engine(builder, network)
    context = engine.create_execution_context()
    xv = np.array([1.0, -2.0, 3.0], np.float32)
    for taken, expected in ((True, xv * xv), (False, 2 * xv), (True, xv * xv)):
        got = run(engine, {"condition": np.array(taken), "x": xv}, context)["y"]
        np.testing.assert_array_equal(got, expected)


def test_loop_stacks_running_sums_and_counts_with_a_while_condition():
    builder, network = new_network()
    x = network.add_input("x", trt.float32, (4, 3))
    limit = network.add_input("limit", trt.int32, ())
    loop = network.add_loop()
    loop.name = "sums"
    trips = constant(network, np.array(4, np.int32))
    count_limit = loop.add_trip_limit(trips, trt.TripLimit.COUNT)
    assert isinstance(count_limit, trt.ITripLimitLayer) and count_limit.kind == trt.TripLimit.COUNT
    assert count_limit.loop.name == "sums"
    row = loop.add_iterator(x)
    assert isinstance(row, trt.IIteratorLayer) and row.axis == 0 and not row.reverse
    total = loop.add_recurrence(constant(network, np.zeros(3, np.float32)))
    assert isinstance(total, trt.IRecurrenceLayer)
    step = network.add_elementwise(total.get_output(0), row.get_output(0), trt.ElementWiseOperation.SUM)
    total.set_input(1, step.get_output(0))
    # A second limit: stop once the counter reaches `limit` (whichever comes first).
    counter = loop.add_recurrence(constant(network, np.array(0, np.int32)))
    one = constant(network, np.array(1, np.int32))
    counter.set_input(1, network.add_elementwise(counter.get_output(0), one, trt.ElementWiseOperation.SUM).get_output(0))
    below = network.add_elementwise(counter.get_output(0), limit, trt.ElementWiseOperation.LESS)
    loop.add_trip_limit(below.get_output(0), trt.TripLimit.WHILE)
    stacked = loop.add_loop_output(step.get_output(0), trt.LoopOutput.CONCATENATE)
    assert isinstance(stacked, trt.ILoopOutputLayer) and stacked.kind == trt.LoopOutput.CONCATENATE
    stacked.set_input(1, trips)
    last = loop.add_loop_output(step.get_output(0), trt.LoopOutput.LAST_VALUE)
    stacked.get_output(0).name = "stacked"
    last.get_output(0).name = "last"
    network.mark_output(stacked.get_output(0))
    network.mark_output(last.get_output(0))

    engine = build_engine(builder, network)
    context = engine.create_execution_context()
    xv = RNG.standard_normal((4, 3)).astype(np.float32)
    sums = np.cumsum(xv, axis=0)
    for n in (4, 2):
        got = run(engine, {"x": xv, "limit": np.array(n, np.int32)}, context)
        expected = np.zeros((4, 3), np.float32)
        expected[:n] = sums[:n]
        np.testing.assert_allclose(got["stacked"], expected, rtol=1e-6)
        np.testing.assert_allclose(got["last"], sums[n - 1], rtol=1e-6)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_numpy(causal):
    builder, network = new_network()
    shape = (1, 2, 3, 4)
    query, key, value = (network.add_input(name, trt.float32, shape) for name in ("q", "k", "v"))
    attention = network.add_attention(query, key, value, trt.AttentionNormalizationOp.SOFTMAX, causal)
    assert isinstance(attention, trt.IAttention)
    assert attention.norm_op == trt.AttentionNormalizationOp.SOFTMAX and attention.causal == causal
    assert attention.num_inputs >= 3 and attention.get_input(0).name == "q"
    attention.get_output(0).name = "y"
    network.mark_output(attention.get_output(0))

    qv, kv, vv = (RNG.standard_normal(shape).astype(np.float32) for _ in range(3))
    got = run(build_engine(builder, network), {"q": qv, "k": kv, "v": vv})["y"]

    scores = qv @ kv.transpose(0, 1, 3, 2)
    if causal:
        scores = np.where(np.tril(np.ones((3, 3), bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(got, weights @ vv, rtol=1e-5, atol=1e-5)
