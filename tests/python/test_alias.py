"""The opt-in ``tensorrt`` alias (``python -m kiln.alias``): an unmodified TensorRT script imports Kiln through it,
and a real TensorRT package is neither shadowed nor removed without being asked."""

import os
import subprocess
import sys

# A TensorRT script as users write it: nothing in it names Kiln.
SCRIPT = """
import numpy as np
import tensorrt as trt

logger = trt.Logger(trt.Logger.WARNING)
builder = trt.Builder(logger)
network = builder.create_network(0)
x = network.add_input("x", trt.float32, (2, 3))
relu = network.add_activation(x, trt.ActivationType.RELU)
network.mark_output(relu.get_output(0))
print(trt.__kiln_alias__, network.num_layers, trt.nptype(trt.float32).__name__)
"""


def run(args, *path):
    """Runs python with ``path`` ahead of the tests' PYTHONPATH (where the kiln package is)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(p) for p in path] + [env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)


def fake_tensorrt(folder):
    """A stand-in for NVIDIA's package: a tensorrt/ folder that Kiln did not write."""
    os.makedirs(folder / "tensorrt")
    (folder / "tensorrt" / "__init__.py").write_text("REAL = True\n")


def test_an_unmodified_script_imports_kiln_through_the_alias(tmp_path):
    installed = run(["-m", "kiln.alias", "install", "--target", str(tmp_path)], tmp_path)
    assert installed.returncode == 0, installed.stderr
    ran = run(["-c", SCRIPT], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["True", "1", "float32"]
    status = run(["-m", "kiln.alias", "status"], tmp_path)
    assert "Kiln's alias" in status.stdout


def test_install_refuses_to_shadow_a_real_tensorrt_unless_forced(tmp_path):
    fake_tensorrt(tmp_path / "real")
    refused = run(["-m", "kiln.alias", "install", "--target", str(tmp_path / "alias")], tmp_path / "real")
    assert refused.returncode == 1
    assert "a TensorRT package is already importable" in refused.stderr
    assert not (tmp_path / "alias" / "tensorrt").exists()
    forced = run(["-m", "kiln.alias", "install", "--target", str(tmp_path / "alias"), "--force"], tmp_path / "real")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "alias" / "tensorrt" / "__init__.py").exists()


def test_uninstall_removes_only_kilns_alias(tmp_path):
    fake_tensorrt(tmp_path / "real")
    refused = run(["-m", "kiln.alias", "uninstall", "--target", str(tmp_path / "real")])
    assert refused.returncode == 1
    assert "is not Kiln's alias" in refused.stderr
    assert (tmp_path / "real" / "tensorrt" / "__init__.py").exists()

    assert run(["-m", "kiln.alias", "install", "--target", str(tmp_path / "alias")]).returncode == 0
    removed = run(["-m", "kiln.alias", "uninstall", "--target", str(tmp_path / "alias")])
    assert removed.returncode == 0, removed.stderr
    assert not (tmp_path / "alias" / "tensorrt").exists()


# A script with a plugin of TensorRT's decorator API, as TensorRT 10.6+ documents it: nothing in it names Kiln.
PLUGIN_SCRIPT = """
import tensorrt as trt
import tensorrt.plugin as trtp

@trtp.register("alias_test::double_last")
def double_last(x: trtp.TensorDesc, extra: int) -> trtp.TensorDesc:
    out = x.like()
    out.shape_expr[-1] = x.shape_expr[-1] * 2 + extra
    return out

network = trt.Builder(trt.Logger()).create_network(0)
x = network.add_input("x", trt.float32, (2, 3))
layer = network.add_plugin(trtp.op.alias_test.double_last(x, extra=1))
import kiln.tensorrt.plugin
print(tuple(layer.get_output(0).shape), trtp is kiln.tensorrt.plugin)
"""


def test_the_alias_gives_the_decorator_api_as_tensorrt_plugin(tmp_path):
    assert run(["-m", "kiln.alias", "install", "--target", str(tmp_path)], tmp_path).returncode == 0
    ran = run(["-c", PLUGIN_SCRIPT], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split("\n")[0] == "(2, 7) True"  # one module under both names, not a second registry
