"""Small ONNX models the tests write with onnx.helper (no files shipped)."""

import numpy as np

onnx = __import__("pytest").importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def mlp_model(weights, bias):
    """y = softmax(relu(x @ weights + bias)), x of shape [batch, in] with a dynamic batch; opset 17."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", weights.shape[0]])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", weights.shape[1]])]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
        helper.make_node("Add", ["xw", "b"], ["z"], name="add"),
        helper.make_node("Relu", ["z"], ["r"], name="relu"),
        helper.make_node("Softmax", ["r"], ["y"], name="softmax", axis=1),
    ]
    initializers = [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(bias, "b")]
    graph = helper.make_graph(nodes, "mlp", inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def mlp_reference(x, weights, bias):
    r = np.maximum(x @ weights + bias, 0)
    e = np.exp(r - r.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
