#!/usr/bin/env python3
"""Kiln's plugin collection on the GPU, each plugin beside the torchvision op or PyTorch composite that computes the
same thing (issue 15's benchmark); one row per case, printed as soon as it is measured.

For each case of plugin_cases.py: write an ONNX file of one node naming the plugin (its fields as attributes, as
TensorRT's ONNX plugin fallback reads them), time it with `kiln --backend=cuda --noDataTransfers` (GPU Compute Time,
median, on the case's inputs loaded with --loadInputs) and its peer with CUDA events on the same inputs, and compare
the two outputs (max|diff|; kept-box sets for NMS). ratio = peer / Kiln: above 1, Kiln is faster. For memory-bound
plugins the row also gives the bytes they must move over Kiln's time, and that as a percentage of the copy bandwidth
measured at the start (a 1 GiB device-to-device copy). TF32 is off on the PyTorch side.

--device cpu is a smoke test only: small sizes, kiln --backend=cpu (its host Compute Time) and PyTorch on the CPU;
it proves that every ONNX file parses, builds and runs and that the outputs agree, and its times and bandwidth
figures mean nothing.

Usage: plugins_gpu.py --kiln build/tools/kiln/kiln [--only a,b] [--seconds 1] [--fp16] [--device cpu] [--size small]
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plugin_cases  # noqa: E402
import plugin_timing  # noqa: E402

HEADER = (f"{'case':<26} {'prec':<4} {'shape':<34} {'Kiln ms':>9} {'kern ms':>8} {'peer ms':>9} {'ratio':>6} "
          f"{'GB/s':>7} {'%peak':>5} {'%kern':>5}  {'check (max|diff| or kept sets)':<30} peer")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--only", default="", help="comma-separated case names (see --list)")
    parser.add_argument("--seconds", type=float, default=1.0, help="timed duration per measurement")
    parser.add_argument("--fp16", action="store_true", help="FP16 tensors on both sides (kiln --fp16)")
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda", help="cpu: the smoke test")
    parser.add_argument("--size", choices=["real", "small"], help="the cases' sizes (default: real on cuda, small "
                        "on cpu)")
    parser.add_argument("--kernel-times", action="store_true", help="also time Kiln's kernels alone with Nsight "
                        "Compute (ncu on the PATH): the kern ms and %%kern columns")
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    return parser.parse_args()


def measure(case, args, device, folder):
    """The row's figures for one case, or the reason it has none."""
    small = args.size == "small" or (args.size is None and device.type == "cpu")
    instance = case.make(small, args.fp16)
    kiln_ms, outputs = plugin_timing.run_kiln(args.kiln, instance, case.plugin, folder, device.type, args.fp16,
                                              args.seconds)
    if kiln_ms is None:
        return instance, {"failed": f"kiln: {outputs}"}
    figures = {"kiln": kiln_ms}
    if args.kernel_times and device.type == "cuda":
        kernel_ms, detail = plugin_timing.kernel_time(args.kiln, instance, folder, args.fp16)
        figures.update({"kernel": kernel_ms, "launches": detail} if kernel_ms is not None else {"kernel_note": detail})
    try:
        peer_ms, result = plugin_timing.time_peer(instance.peer(device), device, args.seconds)
        check = instance.check(outputs, result)
    except Exception as error:  # a peer or check that fails is a row, not the end of the table
        return instance, {**figures, "failed": f"peer: {type(error).__name__}: {str(error)[:150]}"}
    return instance, {**figures, "peer": peer_ms, "check": check}


def print_row(case, precision, instance, figures, peak):
    shape = instance.shape if instance else ""
    start = f"{case.name:<26} {precision:<4} {shape:<34}"
    kiln = f"{figures['kiln']:9.3f}" if "kiln" in figures else f"{'-':>9}"
    kernel = f"{figures['kernel']:8.3f}" if figures.get("kernel") is not None else f"{'-':>8}"
    note = f"  [kern: {figures['kernel_note']}]" if "kernel_note" in figures else ""
    if "failed" in figures:
        print(f"{start} {kiln} {kernel} {'-':>9} {'-':>6} {'':>7} {'':>5} {'':>5}  {figures['failed']}{note}",
              flush=True)
        return
    bandwidth = percent = kernel_percent = ""
    if instance.bytes_moved:
        rate = instance.bytes_moved / (figures["kiln"] / 1000)
        bandwidth, percent = f"{rate / 1e9:7.0f}", f"{100 * rate / peak:5.0f}"
        if figures.get("kernel"):
            kernel_percent = f"{100 * instance.bytes_moved / (figures['kernel'] / 1000) / peak:5.0f}"
    print(f"{start} {kiln} {kernel} {figures['peer']:9.3f} {figures['peer'] / figures['kiln']:6.2f} {bandwidth:>7} "
          f"{percent:>5} {kernel_percent:>5}  {figures['check']:<30} {case.peer_name}{note}", flush=True)


def main():
    args = parse_args()
    if args.list:
        print("\n".join(f"{case.name:<26} {case.plugin}" for case in plugin_cases.CASES))
        return 0
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.device(args.device)
    wanted = set(filter(None, args.only.split(",")))
    unknown = wanted - {case.name for case in plugin_cases.CASES}
    if unknown:
        print(f"unknown cases: {', '.join(sorted(unknown))} (see --list)", file=sys.stderr)
        return 2
    name = torch.cuda.get_device_name(0) if device.type == "cuda" else "CPU (smoke test: times mean nothing)"
    peak = plugin_timing.copy_bandwidth(device, 1.0 if device.type == "cuda" else 0.25)
    print(f"Device: {name}; PyTorch {torch.__version__}; Kiln: {args.kiln}")
    print(f"Copy bandwidth (a device-to-device copy, bytes read + written): {peak / 1e9:.0f} GB/s", flush=True)
    print(HEADER, flush=True)
    precision = "fp16" if args.fp16 else "fp32"
    with tempfile.TemporaryDirectory() as root:
        for case in plugin_cases.CASES:
            if wanted and case.name not in wanted:
                continue
            if args.fp16 and not case.fp16:
                print(f"{case.name:<26} {precision:<4} {'':<34} {case.plugin} has no FP16 form: skipped", flush=True)
                continue
            folder = os.path.join(root, case.name)
            instance, figures = measure(case, args, device, folder)
            print_row(case, precision, instance, figures, peak)
            shutil.rmtree(folder, ignore_errors=True)  # the inputs and exported outputs of real sizes add up
            if device.type == "cuda":
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
