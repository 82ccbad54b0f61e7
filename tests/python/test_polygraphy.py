"""Polygraphy, unmodified, with Kiln behind ``import tensorrt`` (the opt-in alias): it inspects an ONNX model as a
TensorRT network (every layer as its interface class, with its attributes), builds an engine (``convert``), inspects
the engine's layers, and compares Kiln with ONNX Runtime (``run --trt --onnxrt``). ``run`` gives TrtRunner device
buffers through Polygraphy's CUDA wrapper: where Kiln's default backend is the CPU (no GPU), host_cuda.py replaces
that wrapper with host memory, which Kiln's CPU backend takes; on a GPU it runs as it is, on Kiln's CUDA backend."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

pytest.importorskip("polygraphy")
import kiln  # noqa: E402 (after the skip)

# Polygraphy's command line, as its `polygraphy` script starts it.
POLYGRAPHY = "import sys; from polygraphy.tools import main; sys.argv = ['polygraphy'] + sys.argv[1:]; sys.exit(main())"
HOST_CUDA = pathlib.Path(__file__).with_name("host_cuda.py")
EFFICIENTNET = pathlib.Path(__file__).parents[1] / "models" / "efficientnet" / "model.onnx"


def conv_relu_resize(path):
    """Conv 3x3 (4 to 4 channels), ReLU, nearest Resize by 2: a layer of each of three interface classes."""
    weights = numpy_helper.from_array(np.linspace(-0.5, 0.5, 4 * 4 * 9, dtype=np.float32).reshape(4, 4, 3, 3), "w")
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Resize", ["r", "", "scales"], ["y"], mode="nearest", name="resize"),
    ]
    graph = helper.make_graph(nodes, "conv_relu_resize",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 10, 10])],
                              [weights, scales])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


@pytest.fixture
def polygraphy(tmp_path):
    """Runs polygraphy with the alias ahead of the tests' PYTHONPATH; returns (return code, output)."""
    alias = tmp_path / "alias"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(alias), env.get("PYTHONPATH", "")])
    installed = subprocess.run([sys.executable, "-m", "kiln.alias", "install", "--target", str(alias)], env=env,
                               capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr

    def run(*args):
        # Where Kiln runs on the CPU, TrtRunner's "device" buffers are host memory (host_cuda.py).
        on_host = kiln.default_backend() == kiln.Backend.CPU
        command = [str(HOST_CUDA)] if on_host else ["-c", POLYGRAPHY]
        # faulthandler: a crash prints the Python stack it happened under (a return code of -11 is a segfault).
        done = subprocess.run([sys.executable, "-X", "faulthandler", *command, *args], env=env, capture_output=True,
                              text=True, cwd=tmp_path, timeout=600)
        return done.returncode, done.stdout + done.stderr

    return run


def test_polygraphy_inspects_an_onnx_model_as_a_tensorrt_network(tmp_path, polygraphy):
    conv_relu_resize(tmp_path / "model.onnx")
    code, output = polygraphy("inspect", "model", "model.onnx", "--display-as=trt", "--show", "layers", "attrs")
    assert code == 0, output
    assert "---- 3 Layer(s) ----" in output
    # Each layer is seen as its kind, with the kind's attributes as TensorRT's Python API names them.
    assert "[Op: LayerType.CONVOLUTION]" in output or "[Op: Convolution]" in output, output
    assert ".num_output_maps = 4" in output
    assert ".resize_mode = InterpolationMode.NEAREST" in output
    assert ".scales = [1.0, 1.0, 2.0, 2.0]" in output


def test_polygraphy_builds_an_engine_and_inspects_its_layers(tmp_path, polygraphy):
    conv_relu_resize(tmp_path / "model.onnx")
    code, output = polygraphy("convert", "model.onnx", "-o", "model.engine")
    assert code == 0, output
    assert (tmp_path / "model.engine").stat().st_size > 0
    code, output = polygraphy("inspect", "model", "model.engine", "--show", "layers")
    assert code == 0, output
    assert "---- 1 Engine Input(s) ----" in output and "{x [dtype=float32, shape=(1, 4, 5, 5)]}" in output
    assert "{y [dtype=float32, shape=(1, 4, 10, 10)]}" in output
    assert "resize" in output


def test_polygraphy_run_compares_kiln_with_onnx_runtime(tmp_path, polygraphy):
    """The command the issue names, on the zoo's EfficientNet: Polygraphy builds with its CreateConfig (a timing
    cache it drops before building, saved afterwards), runs TrtRunner (an output allocator, a debug listener) and
    ONNX Runtime on the same random input, and compares the outputs. The model's random weights make its logits tiny
    (about 1e-11), so only the relative tolerance is used (--atol 0): an absolute one would pass any output."""
    pytest.importorskip("onnxruntime")
    code, output = polygraphy("run", str(EFFICIENTNET), "--trt", "--onnxrt", "--input-shapes", "image:[1,3,64,64]",
                              "--save-timing-cache", "timing.cache", "--atol", "0", "--rtol", "1e-2")
    assert code == 0, output
    assert "Finished engine building" in output and "PASSED | Output: 'logits'" in output, output
    assert "trt-runner" in output and "onnxrt-runner" in output and "Pass Rate: 100.00%" in output, output
    assert (tmp_path / "timing.cache").stat().st_size > 0
    assert "[E]" not in output, output
