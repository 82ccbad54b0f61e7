"""Runs one ONNX model in ONNX Runtime and in Kiln (through the onnx_run_model executable, on its CPU or CUDA backend)
and compares outputs."""

import os
import subprocess
import tempfile

import numpy as np
import onnx
import onnxruntime


def run_onnxruntime(model, inputs):
    options = onnxruntime.SessionOptions()
    # ONNX Runtime's graph rewrites (fusions, constant folding in other orders) are left out so that its result is
    # the plain op-by-op reference.
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))


RUNNER_SKIPPED = 77  # onnx_run_model's exit code when the backend cannot run on this machine or in this build


class BackendUnavailable(Exception):
    """onnx_run_model cannot run the asked-for backend here; the message is its reason."""


def run_kiln(runner, model, inputs, backend="cpu"):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "model.onnx")
        onnx.save(model, path)
        for i, value in enumerate(inputs):
            np.save(os.path.join(work, f"input_{i}.npy"), np.ascontiguousarray(value))
        done = subprocess.run([runner, path, work, f"--backend={backend}"], capture_output=True, text=True)
        if done.returncode == RUNNER_SKIPPED:
            raise BackendUnavailable(done.stderr.strip())
        if done.returncode != 0:
            raise AssertionError(f"Kiln failed on {model.graph.name}: {done.stderr.strip()}")
        return [np.load(os.path.join(work, f"output_{i}.npy")) for i in range(len(model.graph.output))]


def compare(runner, model, inputs, atol=1e-5, rtol=1e-4, backend="cpu"):
    """Raises AssertionError naming the model, output and worst element when Kiln (on `backend`) and ONNX Runtime
    disagree, and BackendUnavailable when the runner cannot run `backend` here."""
    onnx.checker.check_model(model, full_check=True)
    expected = run_onnxruntime(model, inputs)
    actual = run_kiln(runner, model, inputs, backend)
    for output, want, got in zip(model.graph.output, expected, actual):
        if want.shape != got.shape:
            raise AssertionError(f"{model.graph.name}: output {output.name} has shape {got.shape}, "
                                 f"ONNX Runtime gives {want.shape}")
        if want.dtype.kind in "iub":
            if not np.array_equal(want, got):
                raise AssertionError(f"{model.graph.name}: output {output.name} differs from ONNX Runtime")
            continue
        error = np.abs(got.astype(np.float64) - want.astype(np.float64))
        bound = atol + rtol * np.abs(want.astype(np.float64))
        if not np.all(error <= bound):
            worst = np.unravel_index(np.argmax(error - bound), error.shape)
            raise AssertionError(f"{model.graph.name}: output {output.name}[{worst}] is {got[worst]}, ONNX Runtime "
                                 f"gives {want[worst]} (atol {atol}, rtol {rtol})")
