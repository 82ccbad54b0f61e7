"""Failures as TensorRT's Python API reports them: False or None where TensorRT returns them (with Kiln's reason in
the log and the parser's errors), exceptions carrying Kiln's logged message where TensorRT raises."""

import gc

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import build_engine, cpu_config


def relu_network(builder):
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (-1, 4))
    network.mark_output(network.add_activation(x, trt.ActivationType.RELU).get_output(0))
    return network


def test_bad_onnx_file_fails_the_parse_with_errors(tmp_path, logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    parser = trt.OnnxParser(network, logger)
    assert not parser.parse(b"this is not an ONNX model")
    assert parser.num_errors >= 1
    error = parser.get_error(0)
    assert error.code() == trt.ErrorCode.MODEL_DESERIALIZE_FAILED
    assert error.desc() and error.desc() in str(error)
    parser.clear_errors()
    assert parser.num_errors == 0
    assert not parser.parse_from_file(str(tmp_path / "missing.onnx"))
    assert parser.num_errors >= 1 and "missing.onnx" in parser.get_error(0).desc()


def test_unsupported_op_names_the_node(logger):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("NoSuchOp", ["x"], ["y"], name="mystery")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    builder = trt.Builder(logger)
    parser = trt.OnnxParser(builder.create_network(), logger)
    assert not parser.parse(model.SerializeToString())
    assert parser.get_error(0).node_name() == "mystery" and "NoSuchOp" in str(parser.get_error(0))


def test_wrong_tensor_name(logger):
    builder = trt.Builder(logger)
    network = relu_network(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 4), (2, 4), (3, 4))
    config = cpu_config(builder)
    config.add_optimization_profile(profile)
    engine = build_engine(builder, network, config, logger)
    context = engine.create_execution_context()

    assert engine.get_tensor_shape("nope") is None
    assert engine.get_tensor_mode("nope") == trt.TensorIOMode.NONE
    del logger.messages[:]
    assert not context.set_input_shape("nope", (2, 4))
    assert any("nope" in message for message in logger.errors())
    assert not context.set_tensor_address("nope", 0)
    with pytest.raises(IndexError):
        engine[engine.num_io_tensors]
    with pytest.raises(TypeError):
        trt.volume(engine.get_tensor_shape("nope"))


def test_refused_profile_shape_raises_with_kiln_message(logger):
    builder = trt.Builder(logger)
    profile = builder.create_optimization_profile()
    with pytest.raises(RuntimeError) as raised:
        profile.set_shape("x", (-1, 4), (2, 4), (3, 4))
    message = str(raised.value)
    assert message.startswith("IOptimizationProfile.set_shape: the min shape of 'x' was refused")
    assert "must be >= 0" in message, "the exception carries what Kiln logged"

    # Shapes out of order are found when the profile is added, which answers -1 as TensorRT's does.
    profile.set_shape("x", (4, 4), (2, 4), (1, 4))
    assert not profile
    assert builder.create_builder_config().add_optimization_profile(profile) == -1


def test_failed_build_returns_none(logger):
    builder = trt.Builder(logger)
    network = relu_network(builder)  # a run-time extent and no optimization profile
    assert builder.build_serialized_network(network, cpu_config(builder)) is None
    assert logger.errors()


def test_unrunnable_context_returns_false(logger):
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4,))
    network.mark_output(network.add_identity(x).get_output(0))
    engine = build_engine(builder, network, logger=logger)
    context = engine.create_execution_context()
    assert not context.execute_async_v3(0)  # no tensor addresses set
    assert logger.errors()


def test_weights_of_a_type_tensorrt_lacks():
    with pytest.raises(TypeError, match="float64"):
        trt.Weights(np.zeros(3))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_logger_that_raises_does_not_break_kiln(logger):
    class Broken(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)

        def log(self, severity, msg):
            raise ValueError("logger failure")

    broken = Broken()
    builder = trt.Builder(broken)
    network = relu_network(builder)
    assert builder.build_serialized_network(network, cpu_config(builder)) is None
    del builder, network
    gc.collect()
