"""Quantizes copies of the model zoo's small exports with NVIDIA Model Optimizer, as a user deploying to TensorRT
would, and records ONNX Runtime's outputs of each quantized model beside it, in tests/models/quantized/<name>_<mode>/
(model.onnx, the source model's input_<i>.npy, expected_<i>.npy, about.txt). quantized_zoo_test.cpp runs them.

Needs a virtual environment with Model Optimizer (it pulls torch and onnxruntime-gpu, whose CPU provider runs here):
    python3 -m venv /work/venvs/modelopt && /work/venvs/modelopt/bin/pip install "nvidia-modelopt[onnx]"
    /work/venvs/modelopt/bin/python tests/models/quantize_with_modelopt.py [name_mode ...]
CI does not run this script: it only reads the files it wrote.

Each model is calibrated on its own test inputs (one batch), so the scales fit the values the test feeds. The layers
between the Q/DQ pairs stay in FP32 (--high_precision_dtype=fp32): the test then compares quantization itself, not
FP16 arithmetic. ONNX Runtime runs the quantized model op by op (no graph optimization, which would fuse Q/DQ pairs
into integer kernels that round differently), which is the reference Kiln's CPU backend must match.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime

ZOO = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(ZOO, "quantized")

# name_mode: (source model, quantize mode, extra options). --dq_only stores quantized weights (INT8 or FP8
# initializers) behind DequantizeLinear alone; without it the weights stay FP32 behind a QuantizeLinear too.
MODELS = {
    "efficientnet_int8": ("efficientnet", "int8", ["--dq_only"]),
    "regnet_int8": ("regnet", "int8", []),
    "vit_fp8": ("vit", "fp8", ["--dq_only"]),
    "bert_int8": ("bert", "int8", ["--dq_only"]),
    "whisper_encoder_int8": ("whisper_encoder", "int8", ["--dq_only"]),
}


def read_inputs(folder):
    inputs = []
    while os.path.exists(os.path.join(folder, f"input_{len(inputs)}.npy")):
        inputs.append(np.load(os.path.join(folder, f"input_{len(inputs)}.npy")))
    return inputs


def quantize(source, mode, options, work):
    """Model Optimizer's command line on a copy of `source`'s model (it writes files beside the model it reads)."""
    model_path = os.path.join(work, "model.onnx")
    shutil.copy(os.path.join(ZOO, source, "model.onnx"), model_path)
    names = [i.name for i in onnx.load(model_path).graph.input]
    calibration = os.path.join(work, "calibration.npz")
    np.savez(calibration, **dict(zip(names, read_inputs(os.path.join(ZOO, source)))))
    output = os.path.join(work, "quantized.onnx")
    command = [sys.executable, "-m", "modelopt.onnx.quantization", f"--onnx_path={model_path}",
               f"--quantize_mode={mode}", f"--calibration_data_path={calibration}", "--calibration_eps=cpu",
               "--high_precision_dtype=fp32", f"--output_path={output}", *options]
    subprocess.run(command, check=True, capture_output=True)
    return output


def run_onnxruntime(model_path, inputs):
    session_options = onnxruntime.SessionOptions()
    session_options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model_path, session_options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, inputs)))


def count_ops(model, op_type):
    return sum(1 for node in model.graph.node if node.op_type == op_type)


def export(name):
    source, mode, options = MODELS[name]
    folder = os.path.join(OUT, name)
    with tempfile.TemporaryDirectory() as work:
        quantized_path = quantize(source, mode, options, work)
        inputs = read_inputs(os.path.join(ZOO, source))
        outputs = run_onnxruntime(quantized_path, inputs)
        model = onnx.load(quantized_path)
        os.makedirs(folder, exist_ok=True)
        onnx.save(model, os.path.join(folder, "model.onnx"))
    for i, array in enumerate(inputs):
        np.save(os.path.join(folder, f"input_{i}.npy"), array)
    for i, array in enumerate(outputs):
        np.save(os.path.join(folder, f"expected_{i}.npy"), array)
    import modelopt
    with open(os.path.join(folder, "about.txt"), "w") as about:
        about.write(f"{source} (tests/models/{source}) quantized to {mode.upper()} by NVIDIA Model Optimizer "
                    f"{modelopt.__version__}\n")
        about.write(f"by tests/models/quantize_with_modelopt.py: --quantize_mode={mode} --high_precision_dtype=fp32 "
                    f"{' '.join(options)}, calibrated on input_<i>.npy\n")
        about.write(f"{count_ops(model, 'QuantizeLinear')} QuantizeLinear, {count_ops(model, 'DequantizeLinear')} "
                    f"DequantizeLinear, opset {model.opset_import[0].version}\n")
        about.write(f"outputs (ONNX Runtime {onnxruntime.__version__}, CPU, no graph optimization): expected_<i>.npy\n")
    print(f"{name}: {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=sorted(MODELS), help=f"among {', '.join(sorted(MODELS))}")
    for name in parser.parse_args().models:
        export(name)


if __name__ == "__main__":
    main()
