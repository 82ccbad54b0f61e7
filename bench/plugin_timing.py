"""Timing for bench/plugins_gpu.py: the kiln command on one plugin model (its median compute time and its outputs),
the peer's median time (CUDA events on the GPU, the wall clock on the CPU), and the device's practical copy
bandwidth."""
import json
import os
import re
import statistics
import subprocess
import time

import numpy as np
import onnx

from resnet50_gpu import time_callable


def first_error(text):
    lines = [line for line in text.splitlines() if "[E]" in line or "rror" in line]
    return (lines[0] if lines else (text.strip().splitlines() or ["no message"])[-1])[:200]


def read_outputs(path):
    """kiln --exportOutput's JSON as arrays by name (FP16 outputs come as floats, INT32 as integers)."""
    with open(path) as file:
        exported = json.load(file)
    outputs = {}
    for tensor in exported:
        dims = [int(d) for d in tensor["dimensions"].split("x") if d] if tensor["dimensions"] else []
        outputs[tensor["name"]] = np.asarray(tensor["values"]).reshape(dims)
    return outputs


def plugins_in_plan(path):
    """The plugin names (name version) a plan's --exportLayerInfo says it needs."""
    with open(path) as file:
        info = json.load(file)
    return [f"{plugin['Name']} {plugin['Version']}" for plugin in info.get("PluginsNeeded", [])]


def run_kiln(kiln, instance, plugin, folder, backend, fp16, seconds):
    """Builds and times the instance's model with kiln; returns (median ms, outputs by name), or (None, reason).
    A plan without the plugin (an ONNX op imported by Kiln's own importer instead) is a failure too."""
    os.makedirs(folder, exist_ok=True)
    model_path = os.path.join(folder, "model.onnx")
    onnx.save(instance.model, model_path)
    loads = []
    for name, array in instance.inputs.items():
        raw = os.path.join(folder, f"{name}.bin")
        np.ascontiguousarray(array).tofile(raw)
        loads.append(f"{name}:{raw}")
    exported, layers = os.path.join(folder, "outputs.json"), os.path.join(folder, "layers.json")
    # --noDataTransfers: the peer is timed on tensors already on the GPU, so Kiln's time must not copy them.
    command = [kiln, f"--onnx={model_path}", f"--backend={backend}", f"--loadInputs={','.join(loads)}",
               "--noDataTransfers", f"--duration={seconds}", "--warmUp=500", f"--exportOutput={exported}",
               f"--exportLayerInfo={layers}"]
    if fp16:
        command.append("--fp16")
    run = subprocess.run(command, capture_output=True, text=True)
    report = run.stdout + run.stderr
    # The CUDA backend reports "GPU Compute Time", the CPU backend "Compute Time" (its host time).
    compute = re.search(r"Compute Time: .*median = ([\d.e+-]+) ms", report)
    if run.returncode != 0 or not compute:
        return None, first_error(report)
    used = plugins_in_plan(layers)
    if not any(name.split()[0] == plugin for name in used):
        return None, f"the plan does not use {plugin} (plugins: {', '.join(used) or 'none'})"
    return float(compute.group(1)), read_outputs(exported)


def time_host(run, seconds):
    """Median wall time (ms) of single calls on the CPU, after warm-up calls."""
    for _ in range(2):
        run()
    latencies = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or len(latencies) < 5:
        start = time.perf_counter()
        run()
        latencies.append((time.perf_counter() - start) * 1000)
    return statistics.median(latencies)


def time_peer(call, device, seconds):
    """The peer's median time (ms) and the result of one more call, for the check."""
    import torch

    with torch.inference_mode():
        median = time_callable(call, seconds)["median"] if device.type == "cuda" else time_host(call, seconds)
        return median, call()


def copy_bandwidth(device, gib):
    """Bytes read and written per second by a large device-to-device copy: the practical peak that memory-bound
    plugins are measured against."""
    import torch

    count = int(gib * (1 << 30)) // 4
    source = torch.empty(count, dtype=torch.float32, device=device).fill_(1.0)
    target = torch.empty_like(source)
    copy = lambda: target.copy_(source)  # noqa: E731
    median = time_callable(copy, 1.0)["median"] if device.type == "cuda" else time_host(copy, 1.0)
    del source, target
    return 2 * count * 4 / (median / 1000)
