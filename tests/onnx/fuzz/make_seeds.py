#!/usr/bin/env python3
"""Writes the ONNX fuzzer's own seeds (tests/onnx/fuzz/seeds) and its external-data file (external/weights.bin).

Three kinds of models, a few hundred bytes each:
- valid_*: small models of the layer families whose sizes come from the model (convolution, OneHot, Range,
  ConstantOfShape, external data, run-time extents, shape-tensor inputs, NonZero) and of Model Optimizer's quantized
  forms (a Q/DQ INT8 convolution with filters scaled per map, an FP8 matrix multiply), which build and run on the CPU
  backend; make_seeds.sh turns them into plan seeds.
- size_*: the same models with a size that overflows or is absurd (2^62 elements, a depth of 2^62, a channel count
  near 2^63, a 0-length axis, external data past the end of its file): each must be refused with an error, or
  (the 0-length axis) run.
- qdq_*: the quantized models with a scale or zero point that is wrong (too few or too many scales for the axis, an
  axis out of range, scales of zero, negative, NaN or infinite, a non-zero or mistyped zero point, block-wise scales):
  each must be refused with an error that names the node, or (a scale that is merely odd) run.
Models that crash or hang the parser, builder or CPU backend today go to pending_regressions/ instead (PENDING): CTest
replays them only with KILN_FUZZ_REPLAY_PENDING=ON; once their fixes are in, take their names out of PENDING and run
this script again. Run from anywhere with the onnx package installed; the output is deterministic.
"""
import pathlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = pathlib.Path(__file__).resolve().parent
SEEDS = HERE / "seeds"
PENDING_DIR = HERE / "pending_regressions"
EXTERNAL = HERE / "external"
WEIGHTS_BYTES = 64  # external/weights.bin: 16 floats
BIG = 1 << 62
HUGE = (1 << 63) - 1
# What each does today: (where it is at fault)
PENDING = set()


def model(name, nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="kiln-fuzz-seeds")
    m.ir_version = 8
    return m


def value(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def i64(name, values, dims=None):
    values = list(values)
    return helper.make_tensor(name, TensorProto.INT64, [len(values)] if dims is None else dims, values)


def declared(name, elem, dims, raw=b""):
    """A tensor whose dims need not match its data (helper.make_tensor checks that they do)."""
    t = TensorProto()
    t.name, t.data_type = name, elem
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def conv(channels_in, weight_dims, x_channels=None):
    """X -> Conv(W, B) -> Relu; weight_dims may declare more than its data holds."""
    weights = np.arange(3 * channels_in * 9, dtype="<f4") / 10.0
    w = declared("W", TensorProto.FLOAT, weight_dims, weights.tobytes())
    b = numpy_helper.from_array(np.array([0.5, -0.5, 0.25], dtype=np.float32), "B")
    nodes = [helper.make_node("Conv", ["X", "W", "B"], ["C"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["C"], ["Y"])]
    x = value("X", TensorProto.FLOAT, [1, x_channels or channels_in, 5, 5])
    return model("conv", nodes, [x], [value("Y", TensorProto.FLOAT, None)], [w, b])


def one_hot(depth):
    nodes = [helper.make_node("OneHot", ["I", "D", "V"], ["Y"], axis=-1)]
    inits = [i64("D", [depth], []), helper.make_tensor("V", TensorProto.FLOAT, [2], [0.0, 1.0])]
    return model("one_hot", nodes, [value("I", TensorProto.INT64, [3])], [value("Y", TensorProto.FLOAT, None)], inits)


def one_hot_sliced(depth):
    """OneHot whose output stays inside the network: a slice keeps two of its columns."""
    nodes = [helper.make_node("OneHot", ["I", "D", "V"], ["H"], axis=-1),
             helper.make_node("Slice", ["H", "S", "E", "A"], ["Y"])]
    inits = [i64("D", [depth], []), helper.make_tensor("V", TensorProto.FLOAT, [2], [0.0, 1.0]), i64("S", [0]),
             i64("E", [2]), i64("A", [-1])]
    return model("one_hot_sliced", nodes, [value("I", TensorProto.INT64, [4])], [value("Y", TensorProto.FLOAT, None)],
                 inits)


def constant_of_shape(shape):
    nodes = [helper.make_node("ConstantOfShape", ["S"], ["Y"],
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.5]))]
    return model("constant_of_shape", nodes, [], [value("Y", TensorProto.FLOAT, None)], [i64("S", shape)])


def range_of(start, limit, delta, elem=TensorProto.INT64):
    inits = [helper.make_tensor(n, elem, [], [v]) for n, v in (("A", start), ("L", limit), ("D", delta))]
    nodes = [helper.make_node("Range", ["A", "L", "D"], ["Y"])]
    return model("range", nodes, [], [value("Y", elem, None)], inits)


def add(x_shape, y_shape):
    nodes = [helper.make_node("Add", ["X", "Y"], ["Z"])]
    inputs = [value("X", TensorProto.FLOAT, x_shape), value("Y", TensorProto.FLOAT, y_shape)]
    return model("add", nodes, inputs, [value("Z", TensorProto.FLOAT, None)])


def external(dims, offset, length):
    """X + W, W read from external/weights.bin at offset and length."""
    w = declared("W", TensorProto.FLOAT, dims)
    w.data_location = TensorProto.EXTERNAL
    for key, val in (("location", "weights.bin"), ("offset", str(offset)), ("length", str(length))):
        entry = w.external_data.add()
        entry.key, entry.value = key, val
    nodes = [helper.make_node("Add", ["X", "W"], ["Y"])]
    return model("external", nodes, [value("X", TensorProto.FLOAT, [4])], [value("Y", TensorProto.FLOAT, None)], [w])


def expand(shape):
    nodes = [helper.make_node("Expand", ["X", "S"], ["Y"])]
    return model("expand", nodes, [value("X", TensorProto.FLOAT, [1, 1])], [value("Y", TensorProto.FLOAT, None)],
                 [i64("S", shape)])


def tile(repeats):
    nodes = [helper.make_node("Tile", ["X", "R"], ["Y"])]
    return model("tile", nodes, [value("X", TensorProto.FLOAT, [2, 3])], [value("Y", TensorProto.FLOAT, None)],
                 [i64("R", repeats)])


def pad(pads):
    nodes = [helper.make_node("Pad", ["X", "P"], ["Y"], mode="constant")]
    return model("pad", nodes, [value("X", TensorProto.FLOAT, [2, 3])], [value("Y", TensorProto.FLOAT, None)],
                 [i64("P", pads)])


def hann_window(size):
    nodes = [helper.make_node("HannWindow", ["N"], ["Y"])]
    return model("hann", nodes, [], [value("Y", TensorProto.FLOAT, None)], [i64("N", [size], [])])


def reshape(shape):
    nodes = [helper.make_node("Reshape", ["X", "S"], ["Y"])]
    return model("reshape", nodes, [value("X", TensorProto.FLOAT, [2, 3])], [value("Y", TensorProto.FLOAT, None)],
                 [i64("S", shape)])


def scalar(name, value, elem=TensorProto.FLOAT):
    return helper.make_tensor(name, elem, [], [value])


def qdq_conv(filter_scales=(0.02, 0.01, 0.03), axis=0, input_scale=0.05, zero_point=0,
             zero_point_type=TensorProto.INT8, block_size=None):
    """X -> Q/DQ (one scale) -> Conv(DQ(INT8 filters, a scale per map on `axis`), B) -> Relu -> Q/DQ, opset 13 (21
    where a block size is given): Model Optimizer's INT8 convolution."""
    codes = (np.arange(3 * 2 * 9) % 255 - 127).astype(np.int8).reshape(3, 2, 3, 3)
    dq_attributes = {"axis": axis}
    if block_size is not None:
        dq_attributes["block_size"] = block_size
    scales = np.array(filter_scales, dtype=np.float32)
    inits = [
        numpy_helper.from_array(codes, "Wq"),
        helper.make_tensor("Ws", TensorProto.FLOAT, [len(scales)], scales.tolist()),
        helper.make_tensor("Wz", TensorProto.INT8, [len(scales)], [0] * len(scales)),
        scalar("s", input_scale),
        scalar("z", zero_point, zero_point_type),
        scalar("so", 0.1),
        scalar("zo", 0, TensorProto.INT8),
        numpy_helper.from_array(np.array([0.5, -0.5, 0.25], dtype=np.float32), "B"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["X", "s", "z"], ["Xq"]),
        helper.make_node("DequantizeLinear", ["Xq", "s", "z"], ["Xd"]),
        helper.make_node("DequantizeLinear", ["Wq", "Ws", "Wz"], ["W"], **dq_attributes),
        helper.make_node("Conv", ["Xd", "W", "B"], ["C"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["C"], ["R"]),
        helper.make_node("QuantizeLinear", ["R", "so", "zo"], ["Rq"]),
        helper.make_node("DequantizeLinear", ["Rq", "so", "zo"], ["Y"]),
    ]
    x = value("X", TensorProto.FLOAT, [1, 2, 5, 5])
    return model("qdq_conv", nodes, [x], [value("Y", TensorProto.FLOAT, None)], inits,
                 opset=13 if block_size is None else 21)


def fp8_matmul(weight_scale=0.5, weight_dims=(16, 4)):
    """X -> Q/DQ into FLOAT8E4M3FN -> MatMul(DQ(FP8 weights)), opset 19: Model Optimizer's FP8 projection."""
    count = int(np.prod([d for d in weight_dims if d < 1 << 20]))
    codes = declared("Wq", TensorProto.FLOAT8E4M3FN, list(weight_dims), bytes((i * 7) % 0x7E for i in range(count)))
    inits = [
        codes,
        scalar("Ws", weight_scale),
        scalar("s", 0.25),
        helper.make_tensor("z", TensorProto.FLOAT8E4M3FN, [], [0.0]),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["X", "s", "z"], ["Xq"]),
        helper.make_node("DequantizeLinear", ["Xq", "s", "z"], ["Xd"]),
        helper.make_node("DequantizeLinear", ["Wq", "Ws"], ["W"]),
        helper.make_node("MatMul", ["Xd", "W"], ["Y"]),
    ]
    x = value("X", TensorProto.FLOAT, [2, weight_dims[0]])
    return model("fp8_matmul", nodes, [x], [value("Y", TensorProto.FLOAT, None)], inits, opset=19)


def valid_models():
    dynamic = model("dynamic", [helper.make_node("Relu", ["X"], ["Y"])], [value("X", TensorProto.FLOAT, ["N", 3])],
                    [value("Y", TensorProto.FLOAT, None)])
    shape_input = model("shape_input", [helper.make_node("Reshape", ["X", "S"], ["Y"])],
                        [value("X", TensorProto.FLOAT, [1]), value("S", TensorProto.INT64, [2])],
                        [value("Y", TensorProto.FLOAT, None)])
    non_zero = model("non_zero", [helper.make_node("NonZero", ["X"], ["Y"])], [value("X", TensorProto.FLOAT, [2, 3])],
                     [value("Y", TensorProto.INT64, None)])
    return {
        "valid_conv_relu": conv(2, [3, 2, 3, 3]),
        "valid_one_hot": one_hot(4),
        "valid_one_hot_sliced": one_hot_sliced(4),
        "valid_constant_of_shape": constant_of_shape([2, 3]),
        "valid_range": range_of(0, 10, 3),
        "valid_add_broadcast": add([2, 3], [1, 3]),
        "valid_external": external([4], 16, 16),
        "valid_expand": expand([2, 3]),
        "valid_tile": tile([2, 1]),
        "valid_pad": pad([0, 1, 0, 1]),
        "valid_hann_window": hann_window(8),
        "valid_dynamic_extent": dynamic,
        "valid_shape_input": shape_input,
        "valid_non_zero": non_zero,
        "valid_qdq_conv": qdq_conv(),
        "valid_fp8_matmul": fp8_matmul(),
    }


def qdq_models():
    nan, inf = float("nan"), float("inf")
    return {
        "qdq_filter_scales_short": qdq_conv(filter_scales=(0.02, 0.01)),
        "qdq_filter_scales_long": qdq_conv(filter_scales=(0.02, 0.01, 0.03, 0.04)),
        "qdq_filter_axis_out_of_range": qdq_conv(axis=7),
        "qdq_filter_axis_negative": qdq_conv(axis=-9),
        "qdq_filter_scale_zero": qdq_conv(filter_scales=(0.02, 0.0, 0.03)),
        "qdq_filter_scale_nan": qdq_conv(filter_scales=(0.02, nan, 0.03)),
        "qdq_input_scale_zero": qdq_conv(input_scale=0.0),
        "qdq_input_scale_negative": qdq_conv(input_scale=-0.05),
        "qdq_input_scale_infinite": qdq_conv(input_scale=inf),
        "qdq_input_scale_tiny": qdq_conv(input_scale=1e-45),
        "qdq_zero_point_not_zero": qdq_conv(zero_point=3),
        "qdq_zero_point_uint8": qdq_conv(zero_point_type=TensorProto.UINT8),
        "qdq_block_wise": qdq_conv(filter_scales=(0.02,) * 6, block_size=1),
        "qdq_block_size_huge": qdq_conv(block_size=HUGE),
        "qdq_fp8_weight_scale_nan": fp8_matmul(weight_scale=nan),
        "qdq_fp8_weight_scale_zero": fp8_matmul(weight_scale=0.0),
        "qdq_fp8_weight_dims_2e62": fp8_matmul(weight_dims=(16, BIG)),
    }


def size_models():
    return {
        "size_constant_of_shape_2e62": constant_of_shape([BIG]),
        "size_constant_of_shape_product_wraps": constant_of_shape([1 << 32, 1 << 32]),
        "size_constant_of_shape_16GB": constant_of_shape([1 << 32]),
        "size_constant_of_shape_negative": constant_of_shape([-5, 3]),
        "size_one_hot_depth_2e62": one_hot(BIG),
        "size_one_hot_depth_max": one_hot(HUGE),
        "size_one_hot_sliced_depth_2e62": one_hot_sliced(BIG),
        "size_conv_input_channels_2e62": conv(2, [3, 2, 3, 3], x_channels=BIG),
        "size_conv_weight_channels_huge": conv(2, [3, HUGE, 3, 3]),
        "size_conv_output_channels_2e62": conv(2, [BIG, 2, 3, 3]),
        "size_range_count_2e62": range_of(0, BIG, 1),
        "size_range_float_huge": range_of(0.0, 1e30, 1e-30, TensorProto.FLOAT),
        "size_range_zero_delta": range_of(0, 10, 0),
        "size_add_zero_axis": add([0, 4], [1, 4]),
        "size_add_zero_axis_both": add([0, 4], [0, 4]),
        "size_external_offset_max": external([4], HUGE, 16),
        "size_external_offset_past_end": external([4], WEIGHTS_BYTES, 16),
        "size_external_length_2e62": external([4], 0, BIG),
        "size_external_dims_2e62": external([BIG], 0, -1),
        "size_expand_2e62": expand([BIG, 1]),
        "size_tile_repeats_2e62": tile([BIG, 1]),
        "size_pad_2e62": pad([0, BIG, 0, 0]),
        "size_hann_window_2e62": hann_window(BIG),
        "size_reshape_product_wraps": reshape([1 << 32, 1 << 32, 0]),
    }


def main():
    for folder in (SEEDS, PENDING_DIR, EXTERNAL):
        folder.mkdir(exist_ok=True)
    (EXTERNAL / "weights.bin").write_bytes(np.arange(WEIGHTS_BYTES // 4, dtype="<f4").tobytes())
    for name, m in {**valid_models(), **size_models(), **qdq_models()}.items():
        (PENDING_DIR if name in PENDING else SEEDS).joinpath(f"{name}.onnx").write_bytes(m.SerializeToString())


if __name__ == "__main__":
    main()
