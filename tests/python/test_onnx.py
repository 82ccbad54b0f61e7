"""A model written with onnx.helper, parsed by OnnxParser, built and run on the CPU backend; compared with numpy and,
where it is installed, ONNX Runtime."""

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import build_engine, cpu_config, run
from onnx_models import mlp_model, mlp_reference

RNG = np.random.default_rng(11)
WEIGHTS = RNG.standard_normal((6, 5)).astype(np.float32)
BIAS = RNG.standard_normal(5).astype(np.float32)


def parse(builder, logger, model_bytes):
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(model_bytes), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    return network, parser


def test_parsed_model_matches_numpy_and_onnxruntime(logger):
    model = mlp_model(WEIGHTS, BIAS)
    builder = trt.Builder(logger)
    network, parser = parse(builder, logger, model.SerializeToString())
    assert parser.num_errors == 0
    assert [network.get_input(0).name, network.get_output(0).name] == ["x", "y"]
    assert network.get_input(0).shape == (-1, 6)
    layer_types = {network.get_layer(i).type for i in range(network.num_layers)}
    assert trt.LayerType.MATRIX_MULTIPLY in layer_types and trt.LayerType.SOFTMAX in layer_types

    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (3, 6), (8, 6))
    config = cpu_config(builder)
    config.add_optimization_profile(profile)
    engine = build_engine(builder, network, config)

    x = RNG.standard_normal((3, 6)).astype(np.float32)
    y = run(engine, {"x": x})["y"]
    np.testing.assert_allclose(y, mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)

    onnxruntime = pytest.importorskip("onnxruntime")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(y, session.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)


def test_parse_from_file(tmp_path, logger):
    path = tmp_path / "mlp.onnx"
    path.write_bytes(mlp_model(WEIGHTS, BIAS).SerializeToString())
    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    assert parser.parse_from_file(str(path))
    assert network.num_outputs == 1 and parser.supports_operator("MatMul")


def test_dla_flags_as_tensorrt_spells_them(logger):
    model = mlp_model(WEIGHTS, BIAS).SerializeToString()
    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    parser.set_flag(trt.OnnxParserFlag.ADJUST_FOR_DLA)
    assert parser.get_flag(trt.OnnxParserFlag.ADJUST_FOR_DLA)
    assert parser.set_builder_config(builder.create_builder_config())
    parser.set_flag(trt.OnnxParserFlag.REPORT_CAPABILITY_DLA)
    assert not parser.parse(model)
    assert "Kiln has no DLA" in str(parser.get_error(0))
    parser.clear_flag(trt.OnnxParserFlag.REPORT_CAPABILITY_DLA)
    parser.clear_errors()
    assert parser.parse(model), [str(parser.get_error(i)) for i in range(parser.num_errors)]
