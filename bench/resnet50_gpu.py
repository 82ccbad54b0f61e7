#!/usr/bin/env python3
"""ResNet-50 on the GPU: Kiln's CUDA backend beside PyTorch, in one run (issue 5's benchmark).

Exports torchvision's ResNet-50 (weights=None, eval mode) to ONNX, runs it with `kiln --backend=cuda`
(trtexec's flags; its report gives latency and throughput), enqueued directly and replayed from a CUDA
graph, and times the same model in PyTorch eager, eager replayed from a CUDA graph, and
torch.compile(mode="max-autotune"), at each batch size in FP32 and FP16. PyTorch runs channels_last with
TF32 off, as the figures in the issue were taken. Prints one table, a row as soon as it is measured.

Usage: resnet50_gpu.py --kiln build/tools/kiln/kiln [--batches 1,32,256] [--precisions fp32,fp16]
                       [--compile-batches 1,256] [--compile-precisions fp16] [--seconds 2]
torch.compile's autotuning takes minutes per shape; --compile-batches and --compile-precisions limit it
(empty: skip it). The whole table takes longer than one 10-minute command on the GPU machine: run it in
parts (scripts/device/README.md).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--batches", default="1,32,256")
    parser.add_argument("--precisions", default="fp32,fp16")
    parser.add_argument("--compile-batches", default="1,256", help="batch sizes to time torch.compile at")
    parser.add_argument("--compile-precisions", default="fp16", help="precisions to time torch.compile in")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    parser.add_argument("--kiln-only", action="store_true", help="time Kiln alone (a quick check)")
    parser.add_argument("--layers-model-depth", type=int, default=100,
                        help="layers of the network whose enqueueV3 host time is measured")
    return parser.parse_args()


def export_onnx(model, example, path, inputs, outputs, dynamic_axes):
    """TorchScript-based export where this PyTorch still has it (plain ONNX ops, opset 17), else the dynamo one."""
    import torch

    try:
        torch.onnx.export(model, example, path, input_names=inputs, output_names=outputs, opset_version=17,
                          dynamic_axes=dynamic_axes, dynamo=False)
    except Exception as error:  # the legacy exporter is gone or refused the model
        print(f"  TorchScript export failed ({error}); using the dynamo exporter", file=sys.stderr)
        torch.onnx.export(model, (example,), path, input_names=inputs, output_names=outputs, opset_version=18,
                          dynamic_axes=dynamic_axes, dynamo=True)


def export_resnet50(path):
    import torch
    import torchvision

    model = torchvision.models.resnet50(weights=None).eval()
    example = torch.randn(1, 3, 224, 224)
    export_onnx(model, example, path, ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}})


def export_deep_chain(path, depth):
    """A network of `depth` small layers: what one enqueueV3 costs the host, not the GPU."""
    import torch

    class Chain(torch.nn.Module):
        def forward(self, x):
            for i in range(depth // 2):
                x = torch.relu(x) + float(i)
            return x

    export_onnx(Chain().eval(), torch.randn(1, 64), path, ["x"], ["y"], None)


def kiln_figures(kiln, onnx_path, input_name, shape, fp16, seconds, cuda_graph=False, flags=()):
    """Runs kiln and reads trtexec's report: latency median and p99 (ms), throughput (qps), enqueue median.
    With cuda_graph, kiln replays one inference captured into a CUDA graph (--useCudaGraph), as torch.compile's
    max-autotune mode replays its own. `flags` go to kiln as they are (--int8, say)."""
    # --noDataTransfers: PyTorch's figures below time the model on tensors already on the GPU, so Kiln's must not
    # include copying the batch in and out (at batch 256 that copy alone takes longer than the model).
    args = [kiln, f"--onnx={onnx_path}", "--backend=cuda", f"--shapes={input_name}:{shape}",
            f"--duration={seconds}", "--warmUp=500", "--percentile=99", "--noDataTransfers"]
    if fp16:
        args.append("--fp16")
    if cuda_graph:
        args.append("--useCudaGraph")
    args.extend(flags)
    run = subprocess.run(args, capture_output=True, text=True)
    report = run.stdout + run.stderr
    if run.returncode != 0:
        errors = [line for line in report.splitlines() if "] [E] " in line or "error" in line.lower()]
        return {"error": " | ".join(errors[:3]) if errors else f"exit {run.returncode}"}
    latency = re.search(r"\] Latency: .*median = ([\d.]+) ms, percentile\(99%\) = ([\d.]+) ms", report)
    throughput = re.search(r"Throughput: ([\d.]+) qps", report)
    enqueue = re.search(r"Enqueue Time: .*median = ([\d.]+) ms", report)
    if not (latency and throughput and enqueue):
        return {"error": "could not read the report"}
    return {"median": float(latency.group(1)), "p99": float(latency.group(2)), "qps": float(throughput.group(1)),
            "enqueue": float(enqueue.group(1))}


def time_callable(run, seconds):
    """Median and p99 latency (ms) of single calls, and calls per second back to back, with CUDA events."""
    import torch

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    latencies = []
    deadline = time.perf_counter() + seconds / 2
    while time.perf_counter() < deadline or len(latencies) < 10:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        latencies.append(start.elapsed_time(end))
    calls = 0
    torch.cuda.synchronize()
    begin = time.perf_counter()
    while time.perf_counter() - begin < seconds / 2 or calls < 10:
        run()
        calls += 1
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - begin
    latencies.sort()
    return {"median": statistics.median(latencies), "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
            "qps": calls / elapsed}


def pytorch_figures(batch, fp16, seconds, compile_it, make_model=None, image_size=224):
    """PyTorch eager, eager replayed from a CUDA graph and (with compile_it) torch.compile, channels_last, on images of
    [batch, 3, image_size, image_size]. make_model() makes the torch module (torchvision's resnet50 by default)."""
    import torch
    import torchvision

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dtype = torch.float16 if fp16 else torch.float32
    module = make_model() if make_model else torchvision.models.resnet50(weights=None)
    model = module.eval().cuda().to(dtype).to(memory_format=torch.channels_last)
    x = torch.randn(batch, 3, image_size, image_size, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)
    results = {}
    with torch.inference_mode():
        results["eager"] = time_callable(lambda: model(x), seconds)

        static_x = x.clone()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                model(static_x)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            model(static_x)
        results["eager + CUDA graph"] = time_callable(graph.replay, seconds)

        if compile_it:
            compiled = torch.compile(model, mode="max-autotune")
            compiled(x)  # autotunes here, outside the timing
            results["torch.compile max-autotune"] = time_callable(lambda: compiled(x), seconds)
    del model
    torch.cuda.empty_cache()
    return results


def main():
    args = parse_args()
    import torch

    batches = [int(b) for b in args.batches.split(",") if b]
    precisions = [p for p in args.precisions.split(",") if p]
    compile_batches = {int(b) for b in args.compile_batches.split(",") if b}
    compile_precisions = {p for p in args.compile_precisions.split(",") if p}
    print(f"GPU: {torch.cuda.get_device_name(0)}; PyTorch {torch.__version__}; Kiln: {args.kiln}")
    # Each row is printed as soon as it is measured: a run cut short (the GPU machine's 10-minute limit on one
    # command) still leaves what it measured.
    print(f"{'precision':<9} {'batch':>5}  {'engine':<28} {'median ms':>10} {'p99 ms':>9} {'images/s':>10}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        onnx_path = os.path.join(folder, "resnet50.onnx")
        export_resnet50(onnx_path)
        for precision in precisions:
            fp16 = precision == "fp16"
            for batch in batches:
                shape = f"{batch}x3x224x224"
                print_row(precision, batch, "Kiln (CUDA backend)",
                          kiln_figures(args.kiln, onnx_path, "input", shape, fp16, args.seconds))
                print_row(precision, batch, "Kiln + CUDA graph",
                          kiln_figures(args.kiln, onnx_path, "input", shape, fp16, args.seconds, cuda_graph=True))
                if not args.kiln_only:
                    compile_it = batch in compile_batches and precision in compile_precisions
                    for engine, figures in pytorch_figures(batch, fp16, args.seconds, compile_it).items():
                        print_row(precision, batch, engine, figures)
        chain_path = os.path.join(folder, "chain.onnx")
        export_deep_chain(chain_path, args.layers_model_depth)
        chain = kiln_figures(args.kiln, chain_path, "x", "1x64", False, args.seconds)
    print()
    if "error" in chain:
        print(f"enqueueV3 host time, {args.layers_model_depth}-layer network: failed: {chain['error']}")
    else:
        print(f"enqueueV3 host time, {args.layers_model_depth}-layer network (kiln's Enqueue Time, median): "
              f"{chain['enqueue'] * 1000:.1f} us")


def print_row(precision, batch, engine, figures):
    name = precision.upper()
    if "error" in figures:
        print(f"{name:<9} {batch:>5}  {engine:<28} failed: {figures['error']}", flush=True)
        return
    print(f"{name:<9} {batch:>5}  {engine:<28} {figures['median']:>10.3f} {figures['p99']:>9.3f} "
          f"{figures['qps'] * batch:>10.0f}", flush=True)


if __name__ == "__main__":
    main()
