#!/usr/bin/env python3
"""Kiln's CPU backend beside ONNX Runtime's CPU provider, in one run (issue 20's benchmark).

Models (random weights, torch.manual_seed(0) before each is made; exported once each by tests/models/export_zoo.py
with the TorchScript exporter at opset 17 and a dynamic batch axis):
  resnet18, resnet50, mobilenet_v2, torchvision's layouts (weights=None), input "image" [N, 3, 224, 224] FP32 in
  mobilenet_v3_large,               [0, 1), output "logits" [N, 1000]
  efficientnet_b0
  bert                              transformers' BertModel from BertConfig(num_hidden_layers=4): BERT-base's sizes
                                    (vocabulary 30522, hidden 768, 12 heads, intermediate 3072, GELU) with 4 encoder
                                    layers instead of 12; inputs "input_ids" and "attention_mask" [N, 128] INT64 (ids
                                    drawn uniformly from the vocabulary, the last 32 positions of every sequence
                                    masked as padding), output "hidden" (last_hidden_state) [N, 128, 768]

For each model, batch size and thread count, one row, printed as soon as it is measured: ONNX Runtime's median
latency (InferenceSession.run on the CPU provider, default graph optimisations, intra_op_num_threads=N,
inter_op_num_threads=1, sequential execution, after warm-up), Kiln's median latency (`kiln --backend=cpu
--threads=N --cpuKernels=fast`, the "Latency" median of its report, after warm-up), the ratio Kiln/ORT and how far
Kiln's outputs are from ORT's (max|kiln - ort| / max|ort| over all outputs, on the same inputs: the script writes
them as raw .bin files that kiln loads with --loadInputs). Both engines run the same .onnx file, one after the other,
never at once. A row whose ratio is over 1.5 (issue 20's target) is marked; a time never fails the run. The 1-minute
load average is printed on every row, and the machine's facts and load at the start and the end: on a busy machine
the times say little.

Why one export with a dynamic batch rather than one per batch size: it is how users export for TensorRT (and how
tests/models exports its zoo), both engines then run the very same file at both batch sizes, and the exports are
half as many. kiln builds its plan for the --shapes of each run; ONNX Runtime runs the graph at whatever batch it is
fed.

--busy N runs N busy-loop processes (each keeping one core busy) beside the whole run, as other work sharing the
cores would: both engines then run under the same load.

Usage: cpu_onnxruntime.py --kiln build/tools/kiln/kiln [--only resnet18,bert] [--threads 1,2] [--batches 1,8]
                          [--seconds 10] [--cpu-kernels fast] [--busy N] [--cache DIR]
The defaults (all six models, 1 and 2 threads, batch 1 and 8, 10 s per measurement) make 24 rows of about 25 s
each (two measurements, warm-ups, kiln's build and output export): an estimated 18 minutes on a 2-core machine.
Every measurement also runs at least 5 times, so a slow engine stretches the run.

Exit status: 0; 1 when an export or a kiln run failed or Kiln's outputs differ from ORT's (scaled difference over
1e-3); 2 for a bad command line or a kiln without --threads/--cpuKernels. Needs torch, torchvision, transformers,
onnx, onnxruntime and numpy.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
import export_zoo  # noqa: E402
import zoo_models  # noqa: E402

IMAGE_SIZE = 224
BERT_LAYERS = 4
SEQUENCE_LENGTH = 128
TARGET_RATIO = 1.5  # issue 20: Kiln within 1.5x of ONNX Runtime
ERROR_LIMIT = 1e-3  # scaled difference above which the outputs are said to differ (FP32 rounding is far below)
MIN_RUNS = 5  # timed runs per measurement, however long they take: a median of fewer says little
WARM_UP_SECONDS = 1.0
INPUT_SEED = 1  # the inputs' seed (the weights' is export_zoo's, 0)


# ---- the models ----------------------------------------------------------------------------------------------------

def torchvision_model(name):
    """A zoo entry for one of torchvision's image classifiers at its real size, random weights."""
    def make(small):  # export_zoo asks for a size; this benchmark has only the real one
        import torchvision
        return zoo_models._image_model(getattr(torchvision.models, name)(weights=None), IMAGE_SIZE)

    return zoo_models.ZooModel(name, "torchvision", make)


def bert_config():
    from transformers import BertConfig
    return BertConfig(num_hidden_layers=BERT_LAYERS)  # BERT-base otherwise


def make_bert(small):
    from transformers import BertModel
    config = bert_config()
    return zoo_models._text_model(BertModel(config), 1, SEQUENCE_LENGTH, config.vocab_size)


MODELS = [torchvision_model("resnet18"), torchvision_model("resnet50"), torchvision_model("mobilenet_v2"),
          torchvision_model("mobilenet_v3_large"), torchvision_model("efficientnet_b0"),
          zoo_models.ZooModel("bert", "transformers", make_bert)]


def batch_inputs(model, batch):
    """The inputs of `model` at `batch`, in its export's input order, from a fixed seed: the same on every run.
    The zoo's own samplers keep token ids inside the vocabulary and the padding where the zoo puts it."""
    import torch

    torch.manual_seed(INPUT_SEED)
    if model.name == "bert":
        ids, mask = zoo_models._text_inputs(batch, SEQUENCE_LENGTH, bert_config().vocab_size)
        return [ids.numpy(), mask.numpy()]
    return [zoo_models._image(batch, IMAGE_SIZE).numpy()]


def exported_model(model, cache):
    """The model's .onnx file and its input names: from the cache when an earlier run left it there."""
    directory = os.path.join(cache, model.name)
    path = os.path.join(directory, "model.onnx")
    if not os.path.exists(path):
        export_zoo.export(model, False, directory)
    import onnx

    graph = onnx.load(path, load_external_data=False).graph
    initializers = {tensor.name for tensor in graph.initializer}
    return path, [value.name for value in graph.input if value.name not in initializers]


# ---- ONNX Runtime --------------------------------------------------------------------------------------------------

def ort_session(path, threads):
    import onnxruntime

    options = onnxruntime.SessionOptions()  # graph_optimization_level stays at its default (all)
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def time_runs(run, seconds):
    """Wall times (ms) of back-to-back calls of `run` for at least `seconds` and MIN_RUNS calls, after a warm-up of
    at least WARM_UP_SECONDS and two calls (the first call allocates, the second may still)."""
    warm_up_end = time.perf_counter() + WARM_UP_SECONDS
    calls = 0
    while calls < 2 or time.perf_counter() < warm_up_end:
        run()
        calls += 1
    times = []
    end = time.perf_counter() + seconds
    while len(times) < MIN_RUNS or time.perf_counter() < end:
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return times


def ort_measure(path, names, arrays, threads, seconds):
    """ONNX Runtime's median latency (ms) and its outputs by name."""
    session = ort_session(path, threads)
    feeds = dict(zip(names, arrays))
    times = time_runs(lambda: session.run(None, feeds), seconds)
    outputs = session.run(None, feeds)
    return statistics.median(times), {out.name: value for out, value in zip(session.get_outputs(), outputs)}


# ---- Kiln ----------------------------------------------------------------------------------------------------------

def kiln_cpu_flags(threads, kernels):
    """Issue 20's flags of the CPU backend: how many threads it runs on and which kernels it runs."""
    return [f"--threads={threads}", f"--cpuKernels={kernels}"]


def missing_kiln_flags(kiln):
    """The flags of kiln_cpu_flags that this kiln's --help does not list (a kiln from before issue 20)."""
    shown = subprocess.run([kiln, "--help"], capture_output=True, text=True)
    return [flag for flag in ("--threads", "--cpuKernels") if not re.search(flag + r"\b", shown.stdout)]


def kiln_version(kiln):
    shown = subprocess.run([kiln, "--help"], capture_output=True, text=True)
    first = shown.stdout.splitlines()[0] if shown.stdout else ""
    return first.split(":")[0] or "unknown"


def write_raw_inputs(names, arrays, directory):
    """Writes each input as a raw file of its own type (what --loadInputs reads); returns kiln's --shapes and
    --loadInputs values."""
    shapes, loads = [], []
    for i, (name, array) in enumerate(zip(names, arrays)):
        raw = os.path.join(directory, f"input_{i}.bin")
        np.ascontiguousarray(array).tofile(raw)
        shapes.append(f"{name}:{'x'.join(str(d) for d in array.shape)}")
        loads.append(f"{name}:{raw}")
    return ",".join(shapes), ",".join(loads)


def read_kiln_outputs(path):
    """--exportOutput's JSON (a list of {name, dimensions "AxBxC", values}) as arrays by name."""
    with open(path) as file:
        exported = json.load(file)
    outputs = {}
    for tensor in exported:
        dims = [int(d) for d in re.findall(r"\d+", tensor["dimensions"])]  # none for a 0-D tensor
        outputs[tensor["name"]] = np.asarray(tensor["values"], dtype=np.float64).reshape(dims)
    return outputs


def kiln_failure(report, returncode):
    """Kiln's first error line, or how it ended."""
    errors = [line.split("] [E] ", 1)[1] for line in report.splitlines() if "] [E] " in line]
    return (errors[0] if errors else f"exit status {returncode}")[:160]


def kiln_measure(kiln, path, names, arrays, threads, kernels, seconds, directory):
    """Kiln's median latency (ms) and its outputs by name, or (None, why) when it failed."""
    shapes, loads = write_raw_inputs(names, arrays, directory)
    exported = os.path.join(directory, "kiln_outputs.json")
    args = [kiln, f"--onnx={path}", "--backend=cpu", f"--shapes={shapes}", f"--loadInputs={loads}",
            *kiln_cpu_flags(threads, kernels), f"--warmUp={WARM_UP_SECONDS * 1000:g}", f"--duration={seconds:g}",
            f"--iterations={MIN_RUNS}", f"--exportOutput={exported}"]
    # A hung kiln would stall the whole table; no healthy run comes near this limit.
    limit = 600 + 60 * seconds
    try:
        run = subprocess.run(args, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, f"kiln ran for over {limit:g} s"
    report = run.stdout + run.stderr
    if run.returncode != 0:
        return None, kiln_failure(report, run.returncode)
    # "] Latency:" and not "Total ... Time": the summary line of one query's latency, with its median.
    latency = re.search(r"\] Latency: .*?median = ([\d.eE+-]+) ms", report)
    if latency is None:
        return None, "no Latency line in kiln's report"
    return float(latency.group(1)), read_kiln_outputs(exported)


# ---- comparison and the table --------------------------------------------------------------------------------------

def scaled_difference(reference, actual):
    """max|actual - reference| / max|reference| over all outputs, inf where one is missing or shaped otherwise."""
    worst = 0.0
    for name, expected in reference.items():
        got = actual.get(name)
        if got is None or got.shape != expected.shape:
            return float("inf")
        expected = expected.astype(np.float64)
        worst = max(worst, np.abs(got - expected).max() / max(np.abs(expected).max(), 1e-30))
    return worst


def machine_facts():
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            names = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
        model = names[0] if names else model
    except OSError:
        pass  # not Linux: platform's answer
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"CPU: {model}; {os.cpu_count()} logical cores ({usable} usable by this process)"


def load_text():
    return "load average (1, 5, 15 min): " + ", ".join(f"{value:.2f}" for value in os.getloadavg())


HEADER = (f"{'model':<18} {'batch':>5} {'threads':>7} {'ORT ms':>9} {'Kiln ms':>9} {'Kiln/ORT':>8} "
          f"{'diff/ref':>8} {'load':>5}  note")


def print_row(model, batch, threads, ort_ms, kiln_ms, error, note):
    ratio = kiln_ms / ort_ms if kiln_ms is not None else None
    notes = [note] if note else []
    if ratio is not None and ratio > TARGET_RATIO:
        notes.append(f"OVER {TARGET_RATIO:g}x")
    if error is not None and not error <= ERROR_LIMIT:
        notes.append("OUTPUTS DIFFER")
    kiln_text = f"{kiln_ms:9.2f}" if kiln_ms is not None else f"{'failed':>9}"
    ratio_text = f"{ratio:7.2f}x" if ratio is not None else f"{'-':>8}"
    error_text = f"{error:8.1e}" if error is not None else f"{'-':>8}"
    print(f"{model:<18} {batch:>5} {threads:>7} {ort_ms:9.2f} {kiln_text} {ratio_text} {error_text} "
          f"{os.getloadavg()[0]:5.2f}  {'; '.join(notes)}", flush=True)
    return kiln_ms is not None and error <= ERROR_LIMIT


def measure_row(args, model, path, names, batch, threads, scratch):
    """Times one (model, batch, threads) in ONNX Runtime, then in Kiln, and prints its row; False when Kiln failed
    or its outputs differ."""
    arrays = batch_inputs(model, batch)
    ort_ms, reference = ort_measure(path, names, arrays, threads, args.seconds)
    kiln_ms, outputs = kiln_measure(args.kiln, path, names, arrays, threads, args.cpu_kernels, args.seconds,
                                    scratch)
    if kiln_ms is None:
        return print_row(model.name, batch, threads, ort_ms, None, None, f"kiln: {outputs}")
    return print_row(model.name, batch, threads, ort_ms, kiln_ms, scaled_difference(reference, outputs), "")


def measure_model(args, model, cache, scratch):
    """All rows of one model; False when one of them failed."""
    try:
        path, names = exported_model(model, cache)
    except Exception as error:  # an export failure is a row, not the end of the table
        print(f"{model.name:<18} export failed: {type(error).__name__}: {str(error)[:120]}", flush=True)
        return False
    passed = True
    for batch in args.batches:
        for threads in args.threads:
            passed = measure_row(args, model, path, names, batch, threads, scratch) and passed
    return passed


def integer_list(text):
    return [int(value) for value in text.split(",") if value]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--only", default="", help="comma-separated models (default: all): "
                        + ",".join(model.name for model in MODELS))
    parser.add_argument("--threads", type=integer_list, default=[1, 2], help="thread counts (default 1,2)")
    parser.add_argument("--batches", type=integer_list, default=[1, 8], help="batch sizes (default 1,8)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="timed seconds per measurement, each engine (default 10; at least 5 runs whatever it is)")
    parser.add_argument("--cpu-kernels", default="fast", choices=["fast", "reference"],
                        help="kiln's --cpuKernels (default fast)")
    parser.add_argument("--busy", type=int, default=0,
                        help="run this many busy-loop processes beside the whole run, as other work sharing the cores "
                        "would (default 0); both engines run under the same load")
    parser.add_argument("--cache", help="keep the exports in this folder and reuse those found there (delete it "
                        "after changing the models); default: a temporary folder")
    args = parser.parse_args()
    if not (os.path.isfile(args.kiln) and os.access(args.kiln, os.X_OK)):
        parser.error(f"--kiln: {args.kiln} is not an executable file")
    known = {model.name for model in MODELS}
    wanted = set(filter(None, args.only.split(",")))
    if wanted - known:
        parser.error(f"--only: no model {', '.join(sorted(wanted - known))}; the models are {', '.join(sorted(known))}")
    if args.busy < 0:
        parser.error("--busy takes a count of processes, 0 or more")
    if not args.threads or not args.batches or min(args.threads + args.batches) < 1:
        parser.error("--threads and --batches take positive integers")
    args.models = [model for model in MODELS if not wanted or model.name in wanted]
    return args


def print_preamble(args):
    import onnxruntime
    import torch

    print(machine_facts())
    print(f"at the start, {load_text()}")
    print(f"ONNX Runtime {onnxruntime.__version__} (CPUExecutionProvider), PyTorch {torch.__version__} (exports), "
          f"{kiln_version(args.kiln)} at {os.path.abspath(args.kiln)}, --cpuKernels={args.cpu_kernels}")
    if args.busy:
        print(f"with {args.busy} busy-loop process{'es' if args.busy > 1 else ''} running beside the whole run")
    print(f"median of at least {MIN_RUNS} runs and {args.seconds:g} s per measurement, after {WARM_UP_SECONDS:g} s "
          f"of warm-up; diff/ref = max|Kiln - ORT| / max|ORT| over the outputs; rows over {TARGET_RATIO:g}x marked")
    print(HEADER, flush=True)


def start_busy_loops(count):
    """`count` processes that keep one core each busy until killed: other work sharing the machine."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def main():
    args = parse_args()
    missing = missing_kiln_flags(args.kiln)
    if missing:
        print(f"{args.kiln} has no {' or '.join(missing)} (issue 20's CPU backend flags): the thread count of each "
              "row would be a lie; rebuild kiln", file=sys.stderr)
        return 2
    busy = start_busy_loops(args.busy)
    try:
        print_preamble(args)
        passed = True
        with tempfile.TemporaryDirectory(prefix="kiln_cpu_bench_") as scratch:
            cache = args.cache or scratch
            os.makedirs(cache, exist_ok=True)
            for model in args.models:
                passed = measure_model(args, model, cache, scratch) and passed
        print(f"at the end, {load_text()}")
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
