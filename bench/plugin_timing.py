"""Timing for bench/plugins_gpu.py: the kiln command on one plugin model (its median compute time and its outputs),
the peer's median time (CUDA events on the GPU, the wall clock on the CPU), and the device's practical copy
bandwidth."""
import csv
import json
import os
import re
import shutil
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


def write_model(instance, folder):
    """The instance's ONNX file and raw input files in folder; returns the model's path and kiln's --loadInputs list."""
    os.makedirs(folder, exist_ok=True)
    model_path = os.path.join(folder, "model.onnx")
    if not os.path.exists(model_path):
        onnx.save(instance.model, model_path)
    loads = []
    for name, array in instance.inputs.items():
        raw = os.path.join(folder, f"{name}.bin")
        if not os.path.exists(raw):
            np.ascontiguousarray(array).tofile(raw)
        loads.append(f"{name}:{raw}")
    return model_path, loads


def run_kiln(kiln, instance, plugin, folder, backend, fp16, seconds):
    """Builds and times the instance's model with kiln; returns (median ms, outputs by name), or (None, reason).
    A plan without the plugin (an ONNX op imported by Kiln's own importer instead) is a failure too."""
    model_path, loads = write_model(instance, folder)
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


def kernel_period(names):
    """The number of kernels one inference launches: the shortest p with which the list's last 3p kernel names
    repeat (the list ends with the last inference's last kernel); None where no p fits."""
    for period in range(1, len(names) // 3 + 1):
        if all(names[-i] == names[-i - period] for i in range(1, 2 * period + 1)):
            return period
    return None


def kernel_time(kiln, instance, folder, fp16, inferences=6):
    """The time of the plugin's kernels alone in one inference (ms), as Nsight Compute measures each kernel (the
    GPU's clocks and caches as they are, so warm as in kiln's loop), summed over the inference's kernels: the median
    over the last inferences of a short kiln run under ncu. Returns (ms, kernels per inference) or (None, reason)."""
    ncu = shutil.which("ncu")
    if ncu is None:
        return None, "no ncu"
    model_path, loads = write_model(instance, folder)
    log = os.path.join(folder, "ncu.csv")
    command = [ncu, "--clock-control", "none", "--cache-control", "none", "--metrics", "gpu__time_duration.sum",
               "--csv", "--print-units", "base", "--log-file", log, kiln, f"--onnx={model_path}", "--backend=cuda",
               f"--loadInputs={','.join(loads)}", "--noDataTransfers", "--warmUp=0", "--duration=0",
               f"--iterations={inferences}"]
    if fp16:
        command.append("--fp16")
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0 or not os.path.exists(log):
        return None, "ncu: " + first_error(run.stdout + run.stderr)
    with open(log) as file:
        rows = list(csv.DictReader(line for line in file if line.startswith('"')))
    to_ns = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6}
    kernels = [(row["Kernel Name"], float(row["Metric Value"].replace(",", "")) * to_ns.get(row["Metric Unit"], 1.0))
               for row in rows if row.get("Metric Name") == "gpu__time_duration.sum"]
    period = kernel_period([name for name, _ in kernels])
    if period is None or len(kernels) < inferences * period:
        return None, f"ncu: no repeating inference in {len(kernels)} kernels"
    sums = [sum(ns for _, ns in kernels[len(kernels) - (i + 1) * period:len(kernels) - i * period])
            for i in range(inferences - 1)]  # the first inference may meet cold caches and first-use costs
    return statistics.median(sums) / 1e6, period


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
