"""A network built layer by layer with the network API, run on the CPU backend and compared with numpy."""

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import build_engine, cpu_config, run

RNG = np.random.default_rng(7)


def conv2d(x, kernel, bias):
    """Plain NCHW convolution, stride 1, no padding."""
    n, c, h, w = x.shape
    k, _, r, s = kernel.shape
    out = np.zeros((n, k, h - r + 1, w - s + 1), np.float32)
    for i in range(r):
        for j in range(s):
            patch = x[:, :, i : i + h - r + 1, j : j + w - s + 1]
            out += np.einsum("nchw,kc->nkhw", patch, kernel[:, :, i, j])
    return out + bias.reshape(1, k, 1, 1)


def test_convolution_pooling_matmul_softmax(logger):
    builder = trt.Builder(logger)
    network = builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.EXPLICIT_BATCH))
    x = network.add_input("x", trt.float32, (2, 3, 6, 6))
    kernel = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    bias = RNG.standard_normal(4).astype(np.float32)
    conv = network.add_convolution_nd(x, 4, (3, 3), kernel, bias)
    relu = network.add_activation(conv.get_output(0), trt.ActivationType.RELU)
    pool = network.add_pooling_nd(relu.get_output(0), trt.PoolingType.MAX, (2, 2))
    pool.stride_nd = (2, 2)
    flat = network.add_shuffle(pool.get_output(0))
    flat.reshape_dims = (2, 16)
    weights = RNG.standard_normal((16, 5)).astype(np.float32)
    constant = network.add_constant((16, 5), trt.Weights(weights))
    matmul = network.add_matrix_multiply(
        flat.get_output(0), trt.MatrixOperation.NONE, constant.get_output(0), trt.MatrixOperation.NONE
    )
    softmax = network.add_softmax(matmul.get_output(0))
    softmax.axes = 1 << 1
    softmax.get_output(0).name = "probabilities"
    network.mark_output(softmax.get_output(0))

    assert network.num_layers == 7 and network.num_inputs == 1 and network.num_outputs == 1
    assert isinstance(network.get_layer(0), trt.IConvolutionLayer)
    assert network.get_layer(0).type == trt.LayerType.CONVOLUTION
    assert np.array_equal(conv.kernel.reshape(kernel.shape), kernel)
    assert conv.get_output(0).shape == (2, 4, 4, 4)
    assert network.get_output(0).name == "probabilities"
    assert x.is_network_input and not x.is_network_output

    engine = build_engine(builder, network)
    xv = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    got = run(engine, {"x": xv})["probabilities"]

    features = np.maximum(conv2d(xv, kernel, bias), 0)
    pooled = features.reshape(2, 4, 2, 2, 2, 2).max(axis=(3, 5)).reshape(2, 16)
    logits = pooled @ weights
    expected = np.exp(logits - logits.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_elementwise_unary_reduce_concatenation_identity(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    a = network.add_input("a", trt.float32, (3, 4))
    b = network.add_input("b", trt.float32, (3, 4))
    total = network.add_elementwise(a, b, trt.ElementWiseOperation.SUM)
    exp = network.add_unary(total.get_output(0), trt.UnaryOperation.EXP)
    reduced = network.add_reduce(exp.get_output(0), trt.ReduceOperation.SUM, 1 << 0, True)
    joined = network.add_concatenation([reduced.get_output(0), a])
    assert joined.axis == 0
    same = network.add_identity(joined.get_output(0))
    same.get_output(0).name = "y"
    network.mark_output(same.get_output(0))
    assert reduced.op == trt.ReduceOperation.SUM and reduced.keep_dims
    assert network.get_layer(3).type == trt.LayerType.CONCATENATION

    engine = build_engine(builder, network)
    av = RNG.standard_normal((3, 4)).astype(np.float32)
    bv = RNG.standard_normal((3, 4)).astype(np.float32)
    got = run(engine, {"a": av, "b": bv})["y"]
    expected = np.concatenate([np.exp(av + bv).sum(0, keepdims=True), av], axis=0)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_dynamic_batch_with_an_optimization_profile(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 8))
    sigmoid = network.add_activation(x, trt.ActivationType.SIGMOID)
    network.mark_output(sigmoid.get_output(0))
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 8), (4, 8), (16, 8))
    assert profile.get_shape("x") == [(1, 8), (4, 8), (16, 8)]
    config = cpu_config(builder)
    assert config.add_optimization_profile(profile) == 0

    engine = build_engine(builder, network, config)
    assert engine.get_tensor_shape("x") == (-1, 8)
    assert engine.get_tensor_profile_shape("x", 0) == [(1, 8), (4, 8), (16, 8)]
    context = engine.create_execution_context()
    for batch in (1, 5, 16):
        xv = RNG.standard_normal((batch, 8)).astype(np.float32)
        out = run(engine, {"x": xv}, context)[engine.get_tensor_name(1)]
        np.testing.assert_allclose(out, 1 / (1 + np.exp(-xv)), rtol=1e-5)


def test_weights_stay_alive_with_the_network(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4,))
    constant = network.add_constant((4,), np.arange(4, dtype=np.float32))  # the only reference to the array
    total = network.add_elementwise(x, constant.get_output(0), trt.ElementWiseOperation.PROD)
    network.mark_output(total.get_output(0))
    import gc

    gc.collect()
    np.testing.assert_array_equal(constant.weights, [0, 1, 2, 3])
    engine = build_engine(builder, network)
    out = run(engine, {"x": np.full(4, 2, np.float32)})
    np.testing.assert_array_equal(next(iter(out.values())), [0, 2, 4, 6])


def test_weights_and_types():
    weights = trt.Weights(np.zeros((2, 3), np.float16))
    assert weights.dtype == trt.float16 and weights.size == 6 and weights.nbytes == 12
    assert trt.Weights().size == 0
    assert trt.nptype(trt.int32) is np.int32 and trt.float32.itemsize == 4
    assert trt.volume((2, 3, 4)) == 24 and trt.volume(()) == 1
    with pytest.raises(TypeError):
        trt.nptype(trt.bfloat16)
