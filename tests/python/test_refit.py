"""Refit through the Python API on the CPU backend: an engine of the ONNX MLP built with BuilderFlag.REFIT takes new
weights by the initializers' names, from numpy arrays or from another ONNX model, and its context then computes the
MLP with them (numpy's reference)."""

import numpy as np
import pytest

import kiln.tensorrt as trt
from callback_classes import BIAS, WEIGHTS, parsed_network
from conftest import RecordingLogger, cpu_config
from onnx_models import mlp_model, mlp_reference


def refittable_engine(logger, flag=trt.BuilderFlag.REFIT):
    builder, network, _ = parsed_network(logger)
    config = cpu_config(builder)
    config.set_flag(flag)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    return trt.Runtime(logger).deserialize_cuda_engine(plan)


def run(context, x):
    y = np.zeros((x.shape[0], 5), np.float32)
    assert context.set_input_shape("x", x.shape)
    assert context.execute_v2([x.ctypes.data, y.ctypes.data])
    return y


def test_named_weights_from_numpy_reach_the_context():
    logger = RecordingLogger()
    engine = refittable_engine(logger)
    assert engine.refittable
    context = engine.create_execution_context()
    x = np.linspace(-1, 1, 18, dtype=np.float32).reshape(3, 6)
    np.testing.assert_allclose(run(context, x), mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6)

    refitter = trt.Refitter(engine, logger)
    assert sorted(refitter.get_all_weights()) == ["b", "w"]
    assert refitter.get_missing_weights() == []
    prototype = refitter.get_weights_prototype("w")
    assert isinstance(prototype, trt.Weights)
    assert prototype.dtype == trt.DataType.FLOAT and prototype.size == WEIGHTS.size and prototype.numpy() is None
    assert refitter.get_weights_prototype("no such weights").size == -1
    layers, roles = refitter.get_all()
    assert set(roles) == {trt.WeightsRole.CONSTANT} and len(layers) == 2
    weights, bias = WEIGHTS[::-1].copy() * 2, BIAS + 1
    assert refitter.set_named_weights("w", weights) and refitter.set_named_weights("b", bias)
    assert not refitter.set_named_weights("w", np.ones(3, np.float32))  # the wrong count
    assert any('weights "w" holds' in message for message in logger.errors())
    assert refitter.refit_cuda_engine()
    np.testing.assert_allclose(run(context, x), mlp_reference(x, weights, bias), rtol=1e-5, atol=1e-6)


def test_an_onnx_model_refits_the_engine():
    logger = RecordingLogger()
    engine = refittable_engine(logger)
    context = engine.create_execution_context()
    refitter = trt.Refitter(engine, logger)
    onnx_refitter = trt.OnnxParserRefitter(refitter, logger)
    weights, bias = -WEIGHTS, BIAS * 3
    assert onnx_refitter.refit_from_bytes(mlp_model(weights, bias).SerializeToString()), logger.errors()
    assert refitter.refit_cuda_engine()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_allclose(run(context, x), mlp_reference(x, weights, bias), rtol=1e-5, atol=1e-6)
    assert not onnx_refitter.refit_from_bytes(b"not a model")
    assert onnx_refitter.num_errors == 1 and onnx_refitter.get_error(0).code() == trt.ErrorCode.MODEL_DESERIALIZE_FAILED


def test_a_plan_built_with_only_strip_plan_is_refitted_from_its_onnx_model():
    # TensorRT's weight-stripping sample: STRIP_PLAN alone, then every weight refitted from the ONNX model.
    logger = RecordingLogger()
    engine = refittable_engine(logger, trt.BuilderFlag.STRIP_PLAN)
    assert engine.refittable
    refitter = trt.Refitter(engine, logger)
    assert sorted(refitter.get_all_weights()) == ["b", "w"]
    onnx_refitter = trt.OnnxParserRefitter(refitter, logger)
    assert onnx_refitter.refit_from_bytes(mlp_model(WEIGHTS, BIAS).SerializeToString()), logger.errors()
    assert refitter.refit_cuda_engine()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(2, 6)
    np.testing.assert_allclose(
        run(engine.create_execution_context(), x), mlp_reference(x, WEIGHTS, BIAS), rtol=1e-5, atol=1e-6
    )


def test_an_engine_built_without_refit_has_no_refitter():
    logger = RecordingLogger()
    builder, network, _ = parsed_network(logger)
    config = cpu_config(builder)
    profile = builder.create_optimization_profile()
    profile.set_shape("x", (1, 6), (2, 6), (4, 6))
    config.add_optimization_profile(profile)
    engine = trt.Runtime(logger).deserialize_cuda_engine(builder.build_serialized_network(network, config))
    assert not engine.refittable
    with pytest.raises(RuntimeError, match="not refittable"):
        trt.Refitter(engine, logger)
