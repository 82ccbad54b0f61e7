"""INT8 calibration through the Python API: a Python subclass of trt.IInt8EntropyCalibrator2 calibrates a small CNN
on Kiln's CPU backend, and the INT8 engine is compared with ONNX Runtime running the Q/DQ model that states the same
quantization: each convolution's input through QuantizeLinear/DequantizeLinear with the scale of the cache Kiln
wrote, its weights INT8 per output channel with s_c = max|W_c| / 127. ONNX Runtime runs the model op by op (no graph
optimization), computing QuantizeLinear and DequantizeLinear as ONNX defines them."""

import struct

import numpy as np
import pytest

import kiln.tensorrt as trt
from conftest import RecordingLogger, cpu_config, run

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

RNG = np.random.default_rng(29)
W1 = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.4
B1 = RNG.standard_normal(4).astype(np.float32) * 0.1
W2 = RNG.standard_normal((2, 4, 3, 3)).astype(np.float32) * 0.3
B2 = RNG.standard_normal(2).astype(np.float32) * 0.1
BATCHES = [RNG.standard_normal((2, 3, 8, 8)).astype(np.float32) for _ in range(3)]
SHAPE = [2, 3, 8, 8]


def cnn_model():
    """x -> Conv (pads 1) -> h -> Relu -> r -> Conv -> y; opset 17."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["h"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Conv", ["r", "w2", "b2"], ["y"], name="conv2"),
    ]
    return finished(nodes, [numpy_helper.from_array(a, n) for a, n in ((W1, "w1"), (B1, "b1"), (W2, "w2"), (B2, "b2"))])


def finished(nodes, initializers):
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2, 6, 6])]
    model = helper.make_model(helper.make_graph(nodes, "cnn", inputs, outputs, initializers),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def qdq_model(scales):
    """The CNN with Q/DQ pairs of `scales` on both convolutions' inputs and per-channel INT8 weights."""
    nodes, initializers = [], [numpy_helper.from_array(B1, "b1"), numpy_helper.from_array(B2, "b2")]
    for name, weights in (("w1", W1), ("w2", W2)):
        scale = (np.abs(weights).reshape(weights.shape[0], -1).max(axis=1) / np.float32(127)).astype(np.float32)
        q = np.rint(weights / scale[:, None, None, None]).astype(np.int8)
        initializers += [numpy_helper.from_array(q, name + "_q"), numpy_helper.from_array(scale, name + "_s"),
                         numpy_helper.from_array(np.zeros_like(scale, np.int8), name + "_z")]
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"], [name], axis=0))

    def quantized(tensor):
        initializers.extend([numpy_helper.from_array(np.array(scales[tensor], np.float32), tensor + "_s"),
                             numpy_helper.from_array(np.array(0, np.int8), tensor + "_z")])
        return [helper.make_node("QuantizeLinear", [tensor, tensor + "_s", tensor + "_z"], [tensor + "_q"]),
                helper.make_node("DequantizeLinear", [tensor + "_q", tensor + "_s", tensor + "_z"], [tensor + "_dq"])]

    nodes += quantized("x")
    nodes += [helper.make_node("Conv", ["x_dq", "w1", "b1"], ["h"], name="conv1", pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["h"], ["r"], name="relu")]
    nodes += quantized("r")
    nodes.append(helper.make_node("Conv", ["r_dq", "w2", "b2"], ["y"], name="conv2"))
    return finished(nodes, initializers)


class Calibrator(trt.IInt8EntropyCalibrator2):
    """Gives BATCHES from host memory (the CPU backend's), and keeps the cache it is given or gives `cache`."""

    def __init__(self, cache=None):
        trt.IInt8EntropyCalibrator2.__init__(self)
        self.batches = iter(BATCHES)
        self.current = None
        self.calls = 0
        self.cache_in = cache
        self.cache_out = None

    def get_batch_size(self):
        return 2

    def get_batch(self, names):
        self.calls += 1
        assert names == ["x"]
        self.current = next(self.batches, None)
        return None if self.current is None else [self.current.ctypes.data]

    def read_calibration_cache(self):
        return self.cache_in

    def write_calibration_cache(self, cache):
        self.cache_out = bytes(cache)


def build(calibrator, int8=True):
    logger = RecordingLogger()
    builder = trt.Builder(logger)
    network = builder.create_network(0)
    parser = trt.OnnxParser(network, logger)
    assert parser.parse(cnn_model().SerializeToString()), logger.errors()
    config = cpu_config(builder)
    if int8:
        config.set_flag(trt.BuilderFlag.INT8)
        config.int8_calibrator = calibrator
        assert config.int8_calibrator is calibrator
    plan = builder.build_serialized_network(network, config)
    assert plan is not None, logger.errors()
    return trt.Runtime(logger).deserialize_cuda_engine(plan)


def scales_of(cache):
    lines = cache.decode().splitlines()
    assert lines[0].endswith("-EntropyCalibration2")
    return {name: struct.unpack(">f", bytes.fromhex(hex.zfill(8)))[0]
            for name, hex in (line.rsplit(": ", 1) for line in lines[1:])}


def test_calibrated_cnn_matches_onnx_runtime_on_the_same_qdq_model():
    calibrator = Calibrator()
    engine = build(calibrator)
    assert calibrator.calls == len(BATCHES) + 1
    scales = scales_of(calibrator.cache_out)
    assert {"x", "h", "r", "y"} <= set(scales)
    x = RNG.standard_normal(SHAPE).astype(np.float32)
    kiln_y = run(engine, {"x": x})["y"]

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(qdq_model(scales).SerializeToString(), options, providers=["CPUExecutionProvider"])
    (ort_y,) = session.run(["y"], {"x": x})
    np.testing.assert_allclose(kiln_y, ort_y, rtol=0, atol=1e-5 * np.abs(ort_y).max())

    fp32_y = run(build(None, int8=False), {"x": x})["y"]
    assert np.abs(fp32_y - kiln_y).max() > 1e-3 * np.abs(fp32_y).max(), "quantization changed nothing"

    # The cache replaces the batches, and gives the same engine.
    again = Calibrator(cache=calibrator.cache_out)
    np.testing.assert_array_equal(run(build(again), {"x": x})["y"], kiln_y)
    assert again.calls == 0 and again.cache_out is None


def test_dynamic_range_property():
    builder = trt.Builder(RecordingLogger())
    network = builder.create_network(0)
    x = network.add_input("x", trt.float32, (2, 3))
    assert x.dynamic_range is None
    x.dynamic_range = (-1.5, 2.0)
    assert x.dynamic_range == (-1.5, 2.0)
    x.dynamic_range = None
    assert x.dynamic_range is None
    with pytest.raises(ValueError):
        x.dynamic_range = (3.0, -3.0)
    assert trt.CalibrationAlgoType.MINMAX_CALIBRATION != trt.CalibrationAlgoType.ENTROPY_CALIBRATION_2
