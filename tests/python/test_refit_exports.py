"""Refit of real exports (tests/models: timm's ViT, transformers' BERT, torchvision's EfficientNet-B0, random weights)
on the CPU backend. A refittable engine of each model is refitted through OnnxParserRefitter from a copy of the model
whose floating-point initializers are scaled by 0.9; it must then compute exactly what a refittable engine built from
that copy computes, and the refit must have changed its outputs."""

import pathlib

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import RecordingLogger, cpu_config, run

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

MODELS = pathlib.Path(__file__).resolve().parents[1] / "models"


def scaled(model):
    """The model with every FLOAT or FLOAT16 initializer scaled by 0.9."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    for initializer in copy.graph.initializer:
        values = numpy_helper.to_array(initializer)
        if values.dtype in (np.float32, np.float16):
            initializer.CopyFrom(numpy_helper.from_array((values * 0.9).astype(values.dtype), initializer.name))
    return copy


def refittable_engine(model_bytes, inputs, logger):
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(model_bytes), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    config = cpu_config(builder)
    config.set_flag(trt.BuilderFlag.REFIT)
    profile = builder.create_optimization_profile()
    for name, array in inputs.items():
        profile.set_shape(name, array.shape, array.shape, array.shape)
    config.add_optimization_profile(profile)
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    return trt.Runtime(logger).deserialize_cuda_engine(plan)


@pytest.mark.parametrize("name", ["vit", "bert", "efficientnet"])
def test_refit_from_a_changed_export_computes_as_a_build_of_it(name):
    folder = MODELS / name
    model = onnx.load(str(folder / "model.onnx"))
    inputs = {graph_input.name: np.load(folder / f"input_{i}.npy") for i, graph_input in enumerate(model.graph.input)}
    changed = scaled(model).SerializeToString()
    logger = RecordingLogger()

    engine = refittable_engine(model.SerializeToString(), inputs, logger)
    context = engine.create_execution_context()
    before = run(engine, inputs, context)
    refitter = trt.Refitter(engine, logger)
    assert trt.OnnxParserRefitter(refitter, logger).refit_from_bytes(changed), logger.errors()
    assert refitter.refit_cuda_engine()
    after = run(engine, inputs, context)

    built = run(refittable_engine(changed, inputs, logger), inputs)
    for output, expected in built.items():
        np.testing.assert_array_equal(after[output], expected, err_msg=f"{name} {output}")
        assert np.abs(before[output] - expected).max() > 1e-3 * np.abs(expected).max(), "the refit changed nothing"
