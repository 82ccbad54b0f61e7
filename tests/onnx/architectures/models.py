"""Small ONNX models shaped like real architectures (random weights): a ResNet, a MobileNetV2 and a YOLO head with its
upsampling neck, plus single-op models for the ops whose ONNX node tests use data types Kiln lacks (CumSum, Einsum)
or that the node tests feed from graph inputs (Resize's scales, Range's bounds)."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Graph:
    """Collects nodes and random initializers; names are unique per graph."""

    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.count = 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def constant(self, array, prefix="w"):
        name = self.fresh(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, nb_outputs=1, **attributes):
        outputs = [self.fresh(op.lower()) for _ in range(nb_outputs)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=self.fresh(op), **attributes))
        return outputs[0] if nb_outputs == 1 else outputs

    def conv(self, x, c_in, c_out, kernel, stride=1, group=1, bias=True):
        fan_in = c_in // group * kernel * kernel
        w = self.rng.normal(0, (2.0 / fan_in) ** 0.5, (c_out, c_in // group, kernel, kernel)).astype(np.float32)
        inputs = [x, self.constant(w)]
        if bias:
            inputs.append(self.constant(self.rng.normal(0, 0.1, c_out).astype(np.float32), "b"))
        pad = kernel // 2
        return self.node("Conv", inputs, kernel_shape=[kernel, kernel], strides=[stride, stride],
                         pads=[pad, pad, pad, pad], group=group)

    def batch_norm(self, x, channels):
        scale = self.rng.uniform(0.5, 1.5, channels).astype(np.float32)
        bias = self.rng.normal(0, 0.1, channels).astype(np.float32)
        mean = self.rng.normal(0, 0.1, channels).astype(np.float32)
        var = self.rng.uniform(0.5, 1.5, channels).astype(np.float32)
        return self.node("BatchNormalization", [x] + [self.constant(v) for v in (scale, bias, mean, var)],
                         epsilon=1e-5)

    def model(self, inputs, outputs, opset):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        return model


def value(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def resnet(opset=13):
    """Stem, max pool, a basic block, a downsampling block with a 1x1 projection, global pooling and a classifier."""
    g = Graph("resnet", 1)
    x = g.node("Relu", [g.batch_norm(g.conv("x", 3, 16, 3, stride=2, bias=False), 16)])
    x = g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])

    def block(x, c_in, c_out, stride):
        y = g.node("Relu", [g.batch_norm(g.conv(x, c_in, c_out, 3, stride, bias=False), c_out)])
        y = g.batch_norm(g.conv(y, c_out, c_out, 3, bias=False), c_out)
        shortcut = x if stride == 1 else g.batch_norm(g.conv(x, c_in, c_out, 1, stride, bias=False), c_out)
        return g.node("Relu", [g.node("Add", [y, shortcut])])

    x = block(x, 16, 16, 1)
    x = block(x, 16, 32, 2)
    x = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    w = g.constant(g.rng.normal(0, 0.2, (10, 32)).astype(np.float32))
    b = g.constant(g.rng.normal(0, 0.1, 10).astype(np.float32))
    logits = g.node("Gemm", [x, w, b], transB=1)
    g.nodes[-1].output[0] = "logits"
    model = g.model([value("x", [2, 3, 32, 32])], [value("logits", [2, 10])], opset)
    return model, [g.rng.normal(0, 1, (2, 3, 32, 32)).astype(np.float32)]


def mobilenet_v2(opset=15):
    """Stem with ReLU6 (Clip), two inverted residual blocks (expand, depthwise, project; one with the residual add),
    then a Shape/Gather/Concat/Reshape flatten as PyTorch exports it, and a classifier."""
    g = Graph("mobilenet_v2", 2)
    zero = g.constant(np.array(0.0, np.float32), "zero")
    six = g.constant(np.array(6.0, np.float32), "six")

    def relu6(x):
        return g.node("Clip", [x, zero, six])

    x = relu6(g.batch_norm(g.conv("x", 3, 8, 3, stride=2, bias=False), 8))

    def inverted_residual(x, c_in, c_out, stride, expand):
        hidden = c_in * expand
        y = relu6(g.batch_norm(g.conv(x, c_in, hidden, 1, bias=False), hidden))
        y = relu6(g.batch_norm(g.conv(y, hidden, hidden, 3, stride, group=hidden, bias=False), hidden))
        y = g.batch_norm(g.conv(y, hidden, c_out, 1, bias=False), c_out)
        return g.node("Add", [x, y]) if stride == 1 and c_in == c_out else y

    x = inverted_residual(x, 8, 8, 1, 4)
    x = inverted_residual(x, 8, 16, 2, 6)
    x = g.node("GlobalAveragePool", [x])
    batch = g.node("Gather", [g.node("Shape", [x]), g.constant(np.array(0, np.int64), "zero_index")], axis=0)
    shape = g.node("Concat", [g.node("Unsqueeze", [batch, g.constant(np.array([0], np.int64), "axes")]),
                              g.constant(np.array([-1], np.int64), "minus_one")], axis=0)
    x = g.node("Reshape", [x, shape])
    w = g.constant(g.rng.normal(0, 0.2, (16, 5)).astype(np.float32))
    logits = g.node("Add", [g.node("MatMul", [x, w]), g.constant(g.rng.normal(0, 0.1, 5).astype(np.float32))])
    g.nodes[-1].output[0] = "logits"
    model = g.model([value("x", [2, 3, 24, 24])], [value("logits", [2, 5])], opset)
    return model, [g.rng.normal(0, 1, (2, 3, 24, 24)).astype(np.float32)]


def yolo_head(opset=17):
    """A YOLOv5-style neck and detect head on two feature maps: the small map is upsampled (Resize, nearest, scales 2)
    and concatenated with the large one; each level's 1x1 conv output is reshaped to (batch, anchors, 5 + classes,
    h, w), transposed, passed through a sigmoid and decoded into boxes with grid offsets and anchor sizes; the levels
    are concatenated into one (batch, boxes, 5 + classes) tensor."""
    g = Graph("yolo_head", 3)
    anchors, classes = 3, 4
    outputs_per_anchor = 5 + classes
    small = g.node("Mul", ["p4", g.node("Sigmoid", ["p4"])])  # SiLU, as YOLOv5 exports it
    roi = g.constant(np.array([], np.float32), "roi")
    scales = g.constant(np.array([1, 1, 2, 2], np.float32), "scales")
    up = g.node("Resize", [small, roi, scales], mode="nearest", coordinate_transformation_mode="asymmetric",
                nearest_mode="floor")
    large = g.node("Concat", [up, "p3"], axis=1)
    levels = []
    for feature, channels, size, stride, anchor_sizes in (
            (large, 24, 8, 8, [[10, 13], [16, 30], [33, 23]]),
            (small, 16, 4, 16, [[30, 61], [62, 45], [59, 119]])):
        y = g.conv(feature, channels, anchors * outputs_per_anchor, 1)
        y = g.node("Reshape", [y, g.constant(np.array([-1, anchors, outputs_per_anchor, size, size], np.int64))])
        y = g.node("Sigmoid", [g.node("Transpose", [y], perm=[0, 1, 3, 4, 2])])
        xy, wh, rest = g.node("Split", [y, g.constant(np.array([2, 2, outputs_per_anchor - 4], np.int64))],
                              nb_outputs=3, axis=4)
        gy, gx = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        grid = np.stack([gx, gy], -1).reshape(1, 1, size, size, 2).astype(np.float32) - 0.5
        xy = g.node("Mul", [g.node("Add", [g.node("Mul", [xy, g.constant(np.float32(2.0))]), g.constant(grid)]),
                            g.constant(np.float32(stride))])
        anchor_grid = np.array(anchor_sizes, np.float32).reshape(1, anchors, 1, 1, 2)
        wh = g.node("Mul", [g.node("Pow", [g.node("Mul", [wh, g.constant(np.float32(2.0))]),
                                           g.constant(np.float32(2.0))]), g.constant(anchor_grid)])
        boxes = g.node("Concat", [xy, wh, rest], axis=4)
        levels.append(g.node("Reshape", [boxes, g.constant(np.array([-1, anchors * size * size, outputs_per_anchor],
                                                                    np.int64))]))
    g.node("Concat", levels, axis=1)
    g.nodes[-1].output[0] = "detections"
    model = g.model([value("p3", [1, 8, 8, 8]), value("p4", [1, 16, 4, 4])],
                    [value("detections", [1, anchors * (64 + 16), outputs_per_anchor])], opset)
    return model, [g.rng.normal(0, 1, (1, 8, 8, 8)).astype(np.float32),
                   g.rng.normal(0, 1, (1, 16, 4, 4)).astype(np.float32)]


def transformer_block(opset=13):
    """A pre-opset-17 transformer encoder block as torch exports it: LayerNorm spelled out (ReduceMean, Sub, Pow,
    ReduceMean, Add, Sqrt, Div, Mul, Add), single-head attention with a scaled, masked softmax, a residual add, and a
    feed-forward layer whose GELU is erf's five nodes, then SiLU (Sigmoid, Mul) and HardSwish: the element-wise
    chains the CPU fast path fuses, at odd sizes (sequence 7, width 24, hidden 40)."""
    g = Graph("transformer_block", 5)
    width, hidden = 24, 40

    def scalar(v, prefix="c"):
        return g.constant(np.array(v, np.float32), prefix)

    def linear(x, c_in, c_out):
        w = g.constant(g.rng.normal(0, c_in ** -0.5, (c_in, c_out)).astype(np.float32))
        return g.node("Add", [g.node("MatMul", [x, w]), g.constant(g.rng.normal(0, 0.1, c_out).astype(np.float32))])

    def layer_norm(x):
        centred = g.node("Sub", [x, g.node("ReduceMean", [x], axes=[-1])])
        variance = g.node("ReduceMean", [g.node("Pow", [centred, scalar(2.0)])], axes=[-1])
        normal = g.node("Div", [centred, g.node("Sqrt", [g.node("Add", [variance, scalar(1e-5)])])])
        gamma = g.constant(g.rng.uniform(0.5, 1.5, width).astype(np.float32))
        beta = g.constant(g.rng.normal(0, 0.1, width).astype(np.float32))
        return g.node("Add", [g.node("Mul", [normal, gamma]), beta])

    x = layer_norm("x")
    q, k, v = (linear(x, width, width) for _ in range(3))
    scores = g.node("Div", [g.node("MatMul", [q, g.node("Transpose", [k], perm=[0, 2, 1])]), scalar(width ** 0.5)])
    # The mask as BERT makes it: (1 - mask) * -10000, broadcast over the query axis.
    bias = g.node("Mul", [g.node("Sub", [scalar(1.0), "mask"]), scalar(-10000.0)])
    attention = g.node("MatMul", [g.node("Softmax", [g.node("Add", [scores, bias])], axis=-1), v])
    x = g.node("Add", ["x", linear(attention, width, width)])
    h = linear(layer_norm(x), width, hidden)
    gelu = g.node("Mul", [g.node("Mul", [h, g.node("Add", [g.node("Erf", [g.node("Div", [h, scalar(2 ** 0.5)])]),
                                                        scalar(1.0)])]), scalar(0.5)])
    silu = g.node("Mul", [gelu, g.node("Sigmoid", [gelu])])
    hard_swish = g.node("Div", [g.node("Mul", [silu, g.node("Clip", [g.node("Add", [silu, scalar(3.0)]),
                                                                     scalar(0.0), scalar(6.0)])]), scalar(6.0)])
    g.node("Add", [x, linear(hard_swish, hidden, width)])
    g.nodes[-1].output[0] = "y"
    model = g.model([value("x", [2, 7, width]), value("mask", [2, 1, 7])], [value("y", [2, 7, width])], opset)
    mask = np.ones((2, 1, 7), np.float32)
    mask[1, 0, 5:] = 0.0
    return model, [g.rng.normal(0, 1, (2, 7, width)).astype(np.float32), mask]


def single_op(name, op, inputs, shape_out, attributes=None, initializers=(), opset=17, elem=TensorProto.FLOAT):
    """A one-node model; `inputs` maps graph input names to arrays, `initializers` are (name, array) pairs."""
    node = helper.make_node(op, list(inputs) + [n for n, _ in initializers], ["y"], name=name, **(attributes or {}))
    graph = helper.make_graph([node], name, [value(n, list(a.shape), helper.np_dtype_to_tensor_dtype(a.dtype))
                                             for n, a in inputs.items()],
                              [value("y", shape_out, elem)],
                              [numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model, list(inputs.values())


def op_models():
    """Float versions of the node tests Kiln cannot run as ONNX writes them, and forms the node tests leave out."""
    rng = np.random.default_rng(4)

    def rand(*shape):
        return rng.normal(0, 1, shape).astype(np.float32)

    models = []
    x = rand(3, 5)
    for exclusive in (0, 1):
        for reverse in (0, 1):
            for axis in (0, -1):
                models.append(single_op(f"cumsum_e{exclusive}_r{reverse}_a{axis}", "CumSum", {"x": x}, [3, 5],
                                        {"exclusive": exclusive, "reverse": reverse},
                                        [("axis", np.array(axis, np.int64))]))
    einsums = [
        ("einsum_matmul", "ij,jk->ik", [rand(3, 4), rand(4, 5)], [3, 5]),
        ("einsum_batch_matmul", "bij,bjk->bik", [rand(2, 3, 4), rand(2, 4, 5)], [2, 3, 5]),
        ("einsum_transpose", "ijk->kji", [rand(2, 3, 4)], [4, 3, 2]),
        ("einsum_sum", "ij->i", [rand(3, 4)], [3]),
        ("einsum_total", "ij->", [rand(3, 4)], []),
        ("einsum_inner_product", "i,i", [rand(5), rand(5)], []),
        ("einsum_outer_product", "i,j->ij", [rand(3), rand(4)], [3, 4]),
        ("einsum_attention_scores", "bhqd,bhkd->bhqk", [rand(1, 2, 3, 4), rand(1, 2, 5, 4)], [1, 2, 3, 5]),
        ("einsum_implicit", "ij,jk", [rand(2, 3), rand(3, 2)], [2, 2]),
        ("einsum_three_operands", "ij,jk,kl->il", [rand(2, 3), rand(3, 4), rand(4, 2)], [2, 2]),
        ("einsum_sum_then_product", "ijk,jl->il", [rand(2, 3, 4), rand(3, 5)], [2, 5]),
    ]
    for name, equation, arrays, shape in einsums:
        models.append(single_op(name, "Einsum", {f"x{i}": a for i, a in enumerate(arrays)}, shape,
                                {"equation": equation}, opset=12))
    for upper in (0, 1):
        for k in (-1, 0, 2):
            models.append(single_op(f"trilu_u{upper}_k{k}", "Trilu", {"x": rand(2, 4, 5)}, [2, 4, 5],
                                    {"upper": upper}, [("k", np.array(k, np.int64))], opset=14))
    image = rand(1, 2, 4, 6)
    resizes = [
        ("resize_linear_half_pixel", {"mode": "linear"}, [1, 1, 2, 1.5]),
        ("resize_linear_align_corners", {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
         [1, 1, 2, 2]),
        ("resize_cubic_pytorch", {"mode": "cubic", "coordinate_transformation_mode": "pytorch_half_pixel"},
         [1, 1, 0.5, 0.5]),
        ("resize_nearest_ceil", {"mode": "nearest", "nearest_mode": "ceil"}, [1, 1, 1.5, 0.5]),
    ]
    for name, attributes, scales in resizes:
        out = [int(np.floor(d * s)) for d, s in zip(image.shape, scales)]
        models.append(single_op(name, "Resize", {"x": image}, out, attributes,
                                [("roi", np.array([], np.float32)), ("scales", np.array(scales, np.float32))]))
    models.append(single_op("resize_sizes_cubic", "Resize", {"x": image}, [1, 2, 7, 3],
                            {"mode": "cubic", "exclude_outside": 1},
                            [("roi", np.array([], np.float32)), ("scales", np.array([], np.float32)),
                             ("sizes", np.array([1, 2, 7, 3], np.int64))]))
    models.append(range_from_shape())
    # Ops of the issue's list that ONNX 1.12's node tests do not cover yet (added in opsets 18 and 20).
    activations = rand(2, 3, 4, 5) * 3
    models.append(single_op("gelu_erf", "Gelu", {"x": activations}, [2, 3, 4, 5], opset=20))
    models.append(single_op("gelu_tanh", "Gelu", {"x": activations}, [2, 3, 4, 5], {"approximate": "tanh"},
                            opset=20))
    models.append(single_op("mish", "Mish", {"x": activations}, [2, 3, 4, 5], opset=18))
    # LRN with AlexNet's parameters, which the importer makes an ILRNLayer (ONNX Runtime takes odd sizes only, so the
    # importer's composition for even ones is checked by hand in parser_test.cpp).
    models.append(single_op("lrn_alexnet", "LRN", {"x": rand(2, 9, 4, 5) * 10}, [2, 9, 4, 5],
                            {"size": 5, "alpha": 1e-4, "beta": 0.75, "bias": 2.0}))
    # Opset 18's GroupNormalization (scale and bias per group) is deprecated in newer onnx packages, whose checker
    # then rejects it; those packages have opset 21's (per channel), so the test takes whichever is current.
    per_group = not onnx.defs.get_schema("GroupNormalization", 18, "").deprecated
    parameters = 3 if per_group else 6
    models.append(single_op("group_normalization", "GroupNormalization", {"x": rand(2, 6, 4, 5)}, [2, 6, 4, 5],
                            {"num_groups": 3, "epsilon": 1e-5},
                            [("scale", rand(parameters)), ("bias", rand(parameters))],
                            opset=18 if per_group else 21))
    models += quantization_models(rng)
    models += recurrent_models(rng)
    models += loop_models(rng)
    return models


def loop_models(rng):
    """ONNX Loops built with onnx.helper, M fed at run time (as [1], which ONNX Runtime takes too): v = 2 v + i each
    iteration while a condition the body computes (every element of v below 50) holds. M = 0 runs no iteration (the
    loop-carried value is then its initial value), M = 3 ends by the count, M = 20 by the condition."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_float"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["v", "two"], ["doubled"]),
         helper.make_node("Add", ["doubled", "i_float"], ["v_out"]),
         helper.make_node("ReduceMax", ["v_out"], ["largest"], keepdims=0),
         helper.make_node("Less", ["largest", "limit"], ["cond_out"])],
        "body",
        [value("i", [], TensorProto.INT64), value("cond", [], TensorProto.BOOL), value("v", [3])],
        [value("cond_out", [], TensorProto.BOOL), value("v_out", [3])],
        [numpy_helper.from_array(np.array(2.0, np.float32), "two"),
         numpy_helper.from_array(np.array(50.0, np.float32), "limit")])
    models = []
    for trips in (0, 3, 20):
        loop = helper.make_node("Loop", ["m", "start", "v0"], ["y"], body=body)
        graph = helper.make_graph([loop], f"loop_m{trips}",
                                  [value("m", [1], TensorProto.INT64), value("v0", [3])], [value("y", [3])],
                                  [numpy_helper.from_array(np.array(True), "start")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 8
        models.append((model, [np.array([trips], np.int64), rng.uniform(0.5, 1.5, 3).astype(np.float32)]))
    return models


def recurrent_models(rng):
    """LSTM, GRU and RNN with sequences of different lengths (sequence_lens fed at run time, so past its length a
    sequence keeps its states and gives zero rows), in both directions at once, with initial states."""
    steps, batch, features, hidden = 5, 3, 4, 6
    models = []
    for op, gates in (("LSTM", 4), ("GRU", 3), ("RNN", 1)):
        inputs = {
            "x": rng.normal(0, 1, (steps, batch, features)).astype(np.float32),
            "lengths": np.array([5, 2, 3], np.int32),
            "h0": rng.normal(0, 0.5, (2, batch, hidden)).astype(np.float32),
        }
        weights = [("w", rng.normal(0, 0.5, (2, gates * hidden, features)).astype(np.float32)),
                   ("r", rng.normal(0, 0.5, (2, gates * hidden, hidden)).astype(np.float32)),
                   ("b", rng.normal(0, 0.5, (2, 2 * gates * hidden)).astype(np.float32))]
        names = ["x", "w", "r", "b", "lengths", "h0"]
        node = helper.make_node(op, names, ["y"], name=f"{op.lower()}_lengths", hidden_size=hidden,
                                direction="bidirectional")
        graph = helper.make_graph([node], f"{op.lower()}_sequence_lengths",
                                  [value("x", [steps, batch, features]),
                                   value("lengths", [batch], TensorProto.INT32),
                                   value("h0", [2, batch, hidden])],
                                  [value("y", [steps, 2, batch, hidden])],
                                  [numpy_helper.from_array(a, n) for n, a in weights])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        model.ir_version = 8
        models.append((model, [inputs["x"], inputs["lengths"], inputs["h0"]]))
    return models


def quantization_models(rng):
    """QuantizeLinear into INT8 (compared exactly) and QuantizeLinear -> DequantizeLinear through FLOAT8E4M3FN, per
    tensor and per axis, on data that reaches beyond both types' ranges and holds exact ties (k + 0.5 steps)."""
    x = (rng.normal(0, 1, (2, 3, 4)) * 200).astype(np.float32)
    x.flat[::5] = (np.arange(x.size)[::5] - 20 + 0.5) * 0.5  # ties at the per-tensor scale 0.5
    models = []
    for name, scale, axis in (("tensor", np.array(0.5, np.float32), 1),
                              ("axis", np.array([0.5, 1.5, 4.0], np.float32), 1),
                              ("last_axis", np.array([0.25, 1.0, 2.0, 8.0], np.float32), -1)):
        zero = np.zeros(scale.shape, np.int8)
        models.append(single_op(f"quantize_int8_{name}", "QuantizeLinear", {"x": x}, [2, 3, 4], {"axis": axis},
                                [("scale", scale), ("zero", zero)], opset=13, elem=TensorProto.INT8))
        zero8 = numpy_helper.from_array(np.zeros(scale.shape, np.uint8), "zero")
        zero8.data_type = 17  # FLOAT8E4M3FN: the bytes of +0
        quantize = helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], axis=axis)
        dequantize = helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"], axis=axis)
        graph = helper.make_graph([quantize, dequantize], f"quantize_fp8_{name}", [value("x", [2, 3, 4])],
                                  [value("y", [2, 3, 4])], [numpy_helper.from_array(scale, "scale"), zero8])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
        model.ir_version = 9
        models.append((model, [x]))
    return models


def range_from_shape():
    """Range whose limit is computed at run time from the input's shape (positions 0..n-1 added to the input), as
    transformer exports make position ids."""
    g = Graph("range_from_shape", 5)
    n = g.node("Gather", [g.node("Shape", ["x"]), g.constant(np.array(1, np.int64))], axis=0)
    positions = g.node("Range", [g.constant(np.array(0, np.int64)), n, g.constant(np.array(1, np.int64))])
    g.node("Add", ["x", g.node("Cast", [positions], to=TensorProto.FLOAT)])
    g.nodes[-1].output[0] = "y"
    model = g.model([value("x", [2, 7])], [value("y", [2, 7])], 13)
    return model, [g.rng.normal(0, 1, (2, 7)).astype(np.float32)]
