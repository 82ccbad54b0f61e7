#!/usr/bin/env python3
"""Kiln behind Triton Inference Server beside Kiln alone, in one run (issue 48's serving benchmark).

Makes a model repository with one model served by Kiln's backend (libtriton_kiln.so) from an ONNX file, starts a
real tritonserver on it, and drives it with a load generator of its own: client processes (tritonclient, gRPC by
default), each sending requests one after another for a fixed time, swept over the number of clients. Two kinds of
load:

- batch-1 requests, gathered by Triton's dynamic batcher into batches of up to --max-batch;
- requests of --max-batch rows each.

For each point it prints the throughput (inferences, i.e. rows, per second) and its ratio to Kiln alone's at the same
batch, the median and 99th-percentile request latency the clients saw, the server's own mean time per request (from
receiving it to sending the response, queueing included) and the average batch the instances ran (both from Triton's
statistics). Beside them: `kiln` alone on the plan the backend built (the same kernels), at batch 1 and at
--max-batch, with --useCudaGraph on the GPU (and --noDataTransfers where the clients' tensors are in CUDA shared
memory, so that neither side copies between host and GPU), measured before and after the sweep. The summary gives the
issue's ratios: throughput at saturation against Kiln alone, the latency Triton adds at batch 1, and dynamic
batching's throughput against batch-32 requests'.

With --perf-analyzer, Triton's own C++ load generator drives the server instead of the Python clients (whose own
time is in their figures); it also takes the tensors in CUDA shared memory (--shared-memory cuda), and each row gets
its breakdown of a request's mean time: client, network and server send/receive, the server's queue, and the
compute's input, inference and output as the backend reports them.

Run it with the Python of the environment that holds the server (scripts/install-deps.sh makes it):

  ~/.cache/kiln/triton-venv/bin/python bench/triton_serving.py --kiln build/tools/kiln/kiln \\
      --backends build/backends --onnx tests/models/resnest/model.onnx --kind KIND_CPU

On the GPU machine, --kind KIND_GPU and --export resnet50 or --export bert-base (random weights; needs torch and
torchvision or transformers there) with --precision FP16: bench/triton_serving_gpu.sh does it.
"""
import argparse
import glob
import multiprocessing
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
sys.path.insert(0, os.path.join(HERE, "..", "tests", "triton"))
from triton_server import TritonServer, server_paths  # noqa: E402 (the tests' server wrapper, on free ports)

MODEL = "model"
BERT_SEQUENCE = 128


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="the kiln command")
    parser.add_argument("--backends", required=True, help="the folder holding kiln/libtriton_kiln.so")
    model = parser.add_mutually_exclusive_group(required=True)
    model.add_argument("--onnx", help="the ONNX model to serve (a dynamic first dimension: the batch)")
    model.add_argument("--export", choices=["resnet50", "bert-base"], help="export this model first (needs torch)")
    parser.add_argument("--kind", default="KIND_CPU", choices=["KIND_CPU", "KIND_GPU"])
    parser.add_argument("--precision", default="FP32", choices=["FP32", "FP16", "BF16"])
    parser.add_argument("--max-batch", type=int, default=32, help="max_batch_size, and the rows of a large request")
    parser.add_argument("--instances", type=int, default=1, help="instances of the model (per GPU on KIND_GPU)")
    parser.add_argument("--clients", default="1,2,4,8,16,32", help="client counts for batch-1 requests")
    parser.add_argument("--batch-clients", default="1,2,4,8", help="client counts for --max-batch-row requests")
    parser.add_argument("--seconds", type=float, default=5.0, help="timed duration of each point")
    parser.add_argument("--queue-delay-us", type=int, default=0,
                        help="dynamic batching's max_queue_delay_microseconds (0: a batch is what queued while the "
                             "instances were busy, and a lone request waits for nothing)")
    parser.add_argument("--cpu-threads", type=int, default=0,
                        help="KIND_CPU: threads of each instance and of kiln alone (0: every core)")
    parser.add_argument("--no-cuda-graphs", action="store_true", help="KIND_GPU without CUDA graphs")
    parser.add_argument("--protocol", default="grpc", choices=["grpc", "http"])
    parser.add_argument("--shared-memory", nargs="?", const="system", default="none",
                        choices=["none", "system", "cuda"],
                        help="where the clients put the tensors: in the requests (none), in system shared memory "
                             "(the flag alone), or in CUDA shared memory (GPU memory; perf_analyzer only)")
    parser.add_argument("--perf-analyzer",
                        help="Triton's perf_analyzer (a C++ client; tritonclient 2.40's wheel carries it) as the "
                             "load generator instead of the script's own Python clients")
    parser.add_argument("--dims", default="",
                        help="sizes of dynamic dimensions other than the batch: input:128,mask:128 (all but batch)")
    parser.add_argument("--work", help="folder for the repository and exports (default: a temporary one)")
    return parser.parse_args()


# ---- the model ---------------------------------------------------------------------------------------------------

def export_model(name, folder):
    """Exports torchvision's ResNet-50 or transformers' BERT-base (random weights) with a dynamic batch."""
    path = os.path.join(folder, name + ".onnx")
    if os.path.exists(path):
        return path  # exported by an earlier run: the same weights, so the backend's cached plan still serves
    import torch

    sys.path.insert(0, HERE)
    from resnet50_gpu import export_onnx, export_resnet50

    if name == "resnet50":
        export_resnet50(path)
        return path
    # The zoo's BERT export (tests/models/zoo_models.py): input_ids and attention_mask, batch and sequence dynamic.
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
    import zoo_models
    from transformers import BertConfig, BertModel

    config = BertConfig()  # BERT-base's sizes: 12 layers, 768 wide
    export = zoo_models._text_model(BertModel(config), 1, BERT_SEQUENCE, config.vocab_size)
    with torch.no_grad():
        export_onnx(export.module, export.inputs, path, export.input_names, export.output_names, export.dynamic_axes)
    return path


def model_config(args):
    lines = ['backend: "kiln"', "max_batch_size: %d" % args.max_batch,
             "instance_group [ { kind: %s, count: %d } ]" % (args.kind, args.instances),
             "dynamic_batching { max_queue_delay_microseconds: %d }" % args.queue_delay_us,
             'parameters { key: "precision" value: { string_value: "%s" } }' % args.precision]
    if args.kind == "KIND_CPU":
        lines.append('parameters { key: "cpu_threads" value: { string_value: "%d" } }' % args.cpu_threads)
    if args.kind == "KIND_GPU" and not args.no_cuda_graphs:
        # Every batch size the batcher may form gets its graph.
        lines += ["optimization { cuda { graphs: true } }",
                  'parameters { key: "max_cuda_graphs" value: { string_value: "%d" } }' % args.max_batch]
    if args.dims:
        for which, rows in (("min", 1), ("opt", args.max_batch), ("max", args.max_batch)):
            shapes = ",".join("%s:%dx%s" % (n, rows, d) for n, d in (entry.split(":") for entry in args.dims.split(",")))
            lines.append('parameters { key: "%s_shapes" value: { string_value: "%s" } }' % (which, shapes))
    return "\n".join(lines) + "\n"


def write_repository(args, onnx_path, folder):
    version = os.path.join(folder, MODEL, "1")
    os.makedirs(version, exist_ok=True)
    with open(os.path.join(folder, MODEL, "config.pbtxt"), "w") as f:
        f.write(model_config(args))
    target = os.path.join(version, "model.onnx")
    if os.path.lexists(target):
        os.remove(target)
    os.symlink(os.path.abspath(onnx_path), target)
    return os.path.join(version, "model.onnx.%s.plan" % ("cuda" if args.kind == "KIND_GPU" else "cpu"))


def input_dims(metadata, dims_text):
    """Each input's dimensions after the batch: the model's, with --dims giving those that are dynamic."""
    given = {name: [int(d) for d in sizes.split("x")]
             for name, sizes in (entry.split(":") for entry in dims_text.split(",") if entry)}
    dims = {}
    for tensor in metadata["inputs"]:
        dims[tensor["name"]] = given.get(tensor["name"], [int(d) for d in tensor["shape"][1:]])
        if any(d < 0 for d in dims[tensor["name"]]):
            sys.exit("input %s has dynamic dimensions besides the batch (%s): give their sizes with --dims" % (
                tensor["name"], tensor["shape"]))
    return dims


def request_inputs(metadata, dims, rows):
    """Inputs of `rows` rows for the model's inputs: normal values for floats; for integers, token ids below 100 (the
    vocabulary of the zoo's small text models) and 0/1 for masks and token types, so that lookups stay in range."""
    rng = np.random.default_rng(0)
    types = {"FP32": np.float32, "FP16": np.float16, "INT64": np.int64, "INT32": np.int32, "BOOL": np.bool_}
    inputs = {}
    for tensor in metadata["inputs"]:
        shape = [rows] + dims[tensor["name"]]
        dtype = types[tensor["datatype"]]
        if np.issubdtype(dtype, np.integer):
            high = 2 if ("mask" in tensor["name"] or "type" in tensor["name"]) else 100
            inputs[tensor["name"]] = rng.integers(0, high, shape).astype(dtype)
        else:
            inputs[tensor["name"]] = rng.standard_normal(shape).astype(dtype)
    return inputs


# ---- the load generator ------------------------------------------------------------------------------------------

class SharedMemory:
    """System shared memory regions of one client for its inputs and outputs: requests then carry no tensor data,
    as Triton's perf_analyzer does with --shared-memory=system."""

    def __init__(self, client, module, inputs, outputs):
        import tritonclient.utils.shared_memory as shm

        self.shm, self.client, self.handles, self.names = shm, client, [], []
        self.tensors = []
        offset = 0
        region = self._region("in", sum(a.nbytes for a in inputs.values()))
        shm.set_shared_memory_region(region, list(inputs.values()))
        for name, array in inputs.items():
            tensor = module.InferInput(name, list(array.shape), datatype_of(array))
            tensor.set_shared_memory(self.names[-1], array.nbytes, offset)
            self.tensors.append(tensor)
            offset += array.nbytes
        self._region("out", sum(size for _, size in outputs))
        self.outputs, offset = [], 0
        for name, size in outputs:
            output = module.InferRequestedOutput(name)
            output.set_shared_memory(self.names[-1], size, offset)
            self.outputs.append(output)
            offset += size

    def _region(self, what, size):
        self.names.append("kiln_bench_%d_%s" % (os.getpid(), what))
        handle = self.shm.create_shared_memory_region(self.names[-1], "/" + self.names[-1], size)
        self.handles.append(handle)
        self.client.register_system_shared_memory(self.names[-1], "/" + self.names[-1], size)
        return handle

    def close(self):
        for name, handle in zip(self.names, self.handles):
            self.client.unregister_system_shared_memory(name)
            self.shm.destroy_shared_memory_region(handle)


def client_process(url, protocol, inputs, outputs, ready, start, window, results):
    """One client: connects, warms up, waits for the start, then sends requests one after another; reports the
    latency of each request that started inside the timed window. outputs: (name, bytes) of each output where the
    tensors go through shared memory, else None."""
    try:
        if protocol == "grpc":
            import tritonclient.grpc as module
        else:
            import tritonclient.http as module
        client = module.InferenceServerClient(url)
        shared = SharedMemory(client, module, inputs, outputs) if outputs else None
        tensors, requested = (shared.tensors, shared.outputs) if shared else (wire_tensors(module, inputs), None)
        for _ in range(2):
            client.infer(MODEL, tensors, outputs=requested)
        ready.put(None)
        while start.value == 0.0:
            time.sleep(0.001)
        begin, end = start.value, start.value + window
        while time.monotonic() < begin:
            pass
        latencies = []
        while True:
            sent = time.monotonic()
            if sent >= end:
                break
            client.infer(MODEL, tensors, outputs=requested)
            latencies.append(time.monotonic() - sent)
        if shared:
            shared.close()
        results.put(("ok", latencies))
    except Exception as error:  # reported to the parent, which stops
        ready.put(None)
        results.put(("error", repr(error)))


def measure_perf_analyzer(server, args, dims, rows, outputs, clients):
    """The same point as measure(), with Triton's perf_analyzer as the load generator: `clients` concurrent requests
    of `rows` rows, zeros as data (the kernels' time does not depend on it). Returns measure()'s figures and
    perf_analyzer's breakdown of a request's time; None where perf_analyzer failed (its output is printed)."""
    url = "127.0.0.1:%d" % (server.grpc_port if args.protocol == "grpc" else server.http_port)
    report = os.path.join(args.work or tempfile.gettempdir(), "perf_analyzer.csv")
    command = [args.perf_analyzer, "-m", MODEL, "-u", url, "-i", args.protocol, "-b", str(rows),
               "--concurrency-range", "%d:%d" % (clients, clients), "--input-data", "zero",
               "--measurement-interval", str(max(500, int(args.seconds * 1000 / 3))), "--max-trials", "10",
               "--stability-percentage", "20", "--shared-memory", args.shared_memory, "-f", report]
    command += ["--shape=%s:%s" % (name, ",".join(str(d) for d in sizes)) for name, sizes in dims.items()]
    if outputs:
        command.append("--output-shared-memory-size=%d" % max(size for _, size in outputs))
    http = server.http()
    before = server_counts(http)
    run = subprocess.run(command, capture_output=True, text=True, env=perf_analyzer_environment(args))
    after = server_counts(http)
    if run.returncode != 0 or not os.path.exists(report):
        print("perf_analyzer failed (%d): %s\n%s" % (run.returncode, " ".join(command), (run.stdout + run.stderr)[-3000:]))
        return None
    with open(report) as f:
        header, values = [line.strip().split(",") for line in f.readlines()[:2]]
    os.remove(report)
    row = {name: float(value) for name, value in zip(header, values)}
    requests = after["requests"] - before["requests"]
    runs = after["runs"] - before["runs"]
    breakdown = ", ".join("%s %.0f" % (name.lower(), row[name]) for name in PERF_ANALYZER_PARTS if name in row)
    return {"throughput": row["Inferences/Second"], "median": row["p50 latency"] / 1e3, "p99": row["p99 latency"] / 1e3,
            "server_us": (after["request_ns"] - before["request_ns"]) / max(requests, 1) / 1e3,
            "batch": (after["rows"] - before["rows"]) / max(runs, 1), "breakdown": breakdown}


# perf_analyzer's parts of a request's mean time (us), as its report names them.
PERF_ANALYZER_PARTS = ("Client Send", "Network+Server Send/Recv", "Server Queue", "Server Compute Input",
                       "Server Compute Infer", "Server Compute Output", "Client Recv")


def perf_analyzer_environment(args):
    """perf_analyzer needs libb64 and CUDA 12's runtime: the server's own copies (the wheel renames its libraries),
    linked under the names perf_analyzer asks for."""
    _, libraries = server_paths()
    folder = os.path.join(args.work or tempfile.gettempdir(), "perf-analyzer-libraries")
    os.makedirs(folder, exist_ok=True)
    for pattern, name in (("libb64-*.so.0d", "libb64.so.0d"), ("libcudart-*.so.12*", "libcudart.so.12")):
        found = glob.glob(os.path.join(libraries, pattern))
        link = os.path.join(folder, name)
        if found and not os.path.lexists(link):
            os.symlink(found[0], link)
    return dict(os.environ, LD_LIBRARY_PATH=folder + ":" + os.environ.get("LD_LIBRARY_PATH", ""))


def wire_tensors(module, inputs):
    tensors = []
    for name, array in inputs.items():
        tensor = module.InferInput(name, list(array.shape), datatype_of(array))
        tensor.set_data_from_numpy(array)
        tensors.append(tensor)
    return tensors


def output_sizes(server, inputs):
    """(name, bytes) of each output for inputs, as a run gives them (the outputs' shapes may be dynamic)."""
    import tritonclient.http as httpclient

    result = server.http().infer(MODEL, wire_tensors(httpclient, inputs))
    return [(o["name"], result.as_numpy(o["name"]).nbytes) for o in result.get_response()["outputs"]]


def datatype_of(array):
    return {np.float32: "FP32", np.float16: "FP16", np.int64: "INT64", np.int32: "INT32", np.bool_: "BOOL"}[
        array.dtype.type]


def server_counts(http):
    stats = http.get_inference_statistics(MODEL)["model_stats"][0]
    inference = stats["inference_stats"]
    return {"requests": inference["success"]["count"], "request_ns": inference["success"]["ns"],
            "rows": stats["inference_count"], "runs": stats["execution_count"]}


def measure(server, protocol, inputs, outputs, clients, seconds):
    """Runs `clients` client processes for `seconds`; rows/s, median and p99 latency (ms), the server's time per
    request (us) and the average batch the instances ran."""
    context = multiprocessing.get_context("spawn")  # no gRPC or gevent state carried into the children
    ready, results = context.Queue(), context.Queue()
    start = context.Value("d", 0.0)
    url = "127.0.0.1:%d" % (server.grpc_port if protocol == "grpc" else server.http_port)
    processes = [context.Process(target=client_process, args=(url, protocol, inputs, outputs, ready, start, seconds, results))
                 for _ in range(clients)]
    for p in processes:
        p.start()
    for _ in processes:
        ready.get(timeout=300)
    http = server.http()
    before = server_counts(http)
    start.value = time.monotonic() + 0.2
    outcomes = [results.get(timeout=seconds + 300) for _ in processes]
    for p in processes:
        p.join()
    after = server_counts(http)
    errors = [detail for status, detail in outcomes if status == "error"]
    if errors:
        raise RuntimeError("a client failed: " + errors[0] + "\nserver log:\n" + server.log()[-4000:])
    latencies = sorted(x for _, values in outcomes for x in values)
    rows = next(iter(inputs.values())).shape[0]
    requests = after["requests"] - before["requests"]
    runs = after["runs"] - before["runs"]
    return {"throughput": len(latencies) * rows / seconds, "median": 1e3 * statistics.median(latencies),
            "p99": 1e3 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "server_us": (after["request_ns"] - before["request_ns"]) / max(requests, 1) / 1e3,
            "batch": (after["rows"] - before["rows"]) / max(runs, 1)}


def warm_up(server, metadata, dims, max_batch, instances):
    """Runs of every batch size before timing: first runs allocate, and with CUDA graphs capture. The server picks
    the instance; with several, one may first meet a batch size (and capture its graph) inside a timed window."""
    http = server.http()
    import tritonclient.http as httpclient

    for rows in range(1, max_batch + 1):
        tensors = wire_tensors(httpclient, request_inputs(metadata, dims, rows))
        for _ in range(2 * instances):
            http.infer(MODEL, tensors)


# ---- Kiln alone --------------------------------------------------------------------------------------------------

def kiln_alone_command(args, plan, dims, rows):
    shapes = ",".join("%s:%s" % (name, "x".join(str(d) for d in [rows] + sizes)) for name, sizes in dims.items())
    command = [args.kiln, "--loadEngine=" + plan, "--shapes=" + shapes, "--duration=%g" % args.seconds,
               "--warmUp=500"]
    command.append("--useCudaGraph" if args.kind == "KIND_GPU" else "--threads=%d" % args.cpu_threads)
    if args.shared_memory == "cuda":
        # The clients' tensors are on the GPU already, so the server copies nothing between host and GPU: Kiln
        # alone is timed without its copies too (it otherwise moves its inputs and outputs each inference).
        command.append("--noDataTransfers")
    return " ".join(command)


def kiln_alone(args, plan, dims, rows):
    """kiln on the plan the backend built, at `rows` rows: inferences (rows) per second, median and p99 ms."""
    command = kiln_alone_command(args, plan, dims, rows).split(" ")
    run = subprocess.run(command, capture_output=True, text=True)
    report = run.stdout + run.stderr
    latency = re.search(r"\] Latency: .*median = ([\d.]+) ms, .*percentile\(99%\) = ([\d.]+) ms", report)
    throughput = re.search(r"Throughput: ([\d.]+) qps", report)
    if run.returncode != 0 or latency is None or throughput is None:
        raise RuntimeError("kiln failed:\n" + " ".join(command) + "\n" + report[-3000:])
    return {"throughput": float(throughput.group(1)) * rows, "median": float(latency.group(1)),
            "p99": float(latency.group(2))}


# ---- the report --------------------------------------------------------------------------------------------------

def machine_facts(args):
    facts = ["date %s UTC" % time.strftime("%Y-%m-%d %H:%M", time.gmtime())]
    try:
        commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        facts.append("commit " + commit.stdout.strip())
    except OSError:
        pass
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    facts.append("%s, %d cores, load average %.1f" % (cpu, os.cpu_count(), os.getloadavg()[0]))
    if args.kind == "KIND_GPU":
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True)
        facts.append("GPU " + gpu.stdout.strip().replace("\n", "; "))
    return ", ".join(facts)


def print_row(label, clients, figures, alone):
    ratio = figures["throughput"] / alone["throughput"]
    print("%-28s %7d %10.1f %8.2f %9.3f %9.3f %11.0f %9.1f" % (
        label, clients, figures["throughput"], ratio, figures["median"], figures["p99"], figures["server_us"],
        figures["batch"]), flush=True)


def sweep(server, args, metadata, dims, alone):
    """Both kinds of load over their client counts: the rows of each, as (clients, figures) lists."""
    print("\n%-28s %7s %10s %8s %9s %9s %11s %9s" % ("load", "clients", "infer/s", "/alone", "median ms", "p99 ms",
                                                    "srv mean us", "avg batch"))
    measured = {}
    for rows, counts in ((1, args.clients), (args.max_batch, args.batch_clients)):
        inputs = request_inputs(metadata, dims, rows)
        outputs = output_sizes(server, inputs) if args.shared_memory != "none" else None
        measured[rows] = []
        for clients in [int(c) for c in counts.split(",") if c]:
            if args.perf_analyzer:
                figures = measure_perf_analyzer(server, args, dims, rows, outputs, clients)
                if figures is None:
                    continue
            else:
                figures = measure(server, args.protocol, inputs, outputs, clients, args.seconds)
            measured[rows].append((clients, figures))
            label = "batch 1, dynamic batching" if rows == 1 else "batch %d requests" % rows
            print_row(label, clients, figures, alone[rows])
            if "breakdown" in figures:
                print("    perf_analyzer, mean us: " + figures["breakdown"], flush=True)
    return measured[1], measured[args.max_batch]


def measure_alone(args, plan, dims, when):
    """kiln alone at batch 1 and --max-batch, printed."""
    alone = {rows: kiln_alone(args, plan, dims, rows) for rows in sorted({1, args.max_batch})}
    for rows, figures in alone.items():
        print("kiln alone %s, batch %-3d: %10.1f inferences/s, median %.3f ms, p99 %.3f ms" % (
            when, rows, figures["throughput"], figures["median"], figures["p99"]), flush=True)
    return alone


def best_of(first, second):
    """Kiln alone's better figures of two measurements: the ratios do not flatter the server on a noisy machine."""
    return {rows: {"throughput": max(first[rows]["throughput"], second[rows]["throughput"]),
                   "median": min(first[rows]["median"], second[rows]["median"]),
                   "p99": min(first[rows]["p99"], second[rows]["p99"])} for rows in first}


def main():
    args = parse_args()
    # One folder per model: a later run on the same model finds its export and the backend's cached plan there.
    work = os.path.join(args.work or tempfile.mkdtemp(prefix="kiln-triton-bench-"),
                        args.export or os.path.splitext(os.path.basename(args.onnx))[0])
    os.makedirs(work, exist_ok=True)
    onnx_path = args.onnx or export_model(args.export, work)
    if args.export == "bert-base" and not args.dims:
        args.dims = "input_ids:%d,attention_mask:%d" % (BERT_SEQUENCE, BERT_SEQUENCE)  # the sequence is dynamic
    plan = write_repository(args, onnx_path, os.path.join(work, "repository"))
    print("Kiln behind Triton beside Kiln alone: %s, %s, %s, max_batch_size %d, %d instance(s)%s, %s%s" % (
        args.export or args.onnx, args.kind, args.precision, args.max_batch, args.instances,
        ", CUDA graphs" if args.kind == "KIND_GPU" and not args.no_cuda_graphs
        else ", %s CPU threads each" % (args.cpu_threads or "all"), args.protocol,
        "" if args.shared_memory == "none" else ", %s shared memory" % args.shared_memory))
    if args.shared_memory == "cuda" and not args.perf_analyzer:
        sys.exit("--shared-memory cuda needs --perf-analyzer: the Python clients have no CUDA")
    print("load generator: " + ("perf_analyzer" if args.perf_analyzer else "the script's Python clients"))
    print(machine_facts(args))
    print("command: " + " ".join(sys.argv), flush=True)
    # As the kiln command does for itself (tools/kiln/openmp_waiting.cpp): libgomp's idle threads spin briefly, so
    # that on shared cores they leave the time to the server's and the clients' threads. A user's setting wins.
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", "3000")
    server = TritonServer(os.path.join(work, "repository"), args.backends)
    try:
        metadata = server.http().get_model_metadata(MODEL)
        dims = input_dims(metadata, args.dims)
        warm_up(server, metadata, dims, args.max_batch, args.instances)
        before = measure_alone(args, plan, dims, "before")
        print("kiln alone's command: " + kiln_alone_command(args, plan, dims, args.max_batch))
        small, large = sweep(server, args, metadata, dims, before)
    finally:
        server.stop()
    after = measure_alone(args, plan, dims, "after ")
    summarize(small, large, best_of(before, after), args.max_batch)


def summarize(small, large, alone, max_batch):
    print()
    if large:
        best = max(f["throughput"] for _, f in large)
        print("throughput at saturation (batch %d requests): %.1f/s, %.1f%% of kiln alone at batch %d" % (
            max_batch, best, 100 * best / alone[max_batch]["throughput"], max_batch))
    print("(kiln alone: the better of its two measurements)")
    if small and small[0][0] == 1:
        added = small[0][1]["median"] - alone[1]["median"]
        print("median latency added at batch 1 (one client, client to client): %.0f us (Triton %.3f ms, kiln "
              "alone %.3f ms); the server's own mean time per request: %.0f us" % (
                  1e3 * added, small[0][1]["median"], alone[1]["median"], small[0][1]["server_us"]))
    if small and large:
        dynamic = max(f["throughput"] for _, f in small)
        print("dynamic batching of batch-1 clients: %.1f/s, %.1f%% of batch-%d requests' best" % (
            dynamic, 100 * dynamic / max(f["throughput"] for _, f in large), max_batch))


if __name__ == "__main__":
    main()
