#!/usr/bin/env python3
"""The model zoo at its real sizes on the GPU: Kiln's CUDA backend beside PyTorch, FP32 and FP16, in one run (issue
16's benchmark), with Kiln's accuracy against ONNX Runtime (issue 14's table).

For each model of tests/models/zoo_models.py, and torchvision's ResNet-50: export it at its real size (random weights,
seed 0; tests/models/export_zoo.py) and, in FP32, run ONNX Runtime's CPU provider on the same inputs. Then, in each
precision, time PyTorch eager, eager replayed from a CUDA graph and, for the models of --compile, torch.compile in
--compile-mode (max-autotune by default) (CUDA events), and Kiln with `kiln --noDataTransfers`, enqueued and replayed
from a CUDA graph (--useCudaGraph): GPU Compute Time median and p99, and kiln's Throughput. TF32 is off on both sides; in
FP16 kiln gets --fp16 and PyTorch runs the module and its floating-point inputs in half precision. Kiln's outputs are
compared with ONNX Runtime's in FP32 and with PyTorch's FP16 outputs in FP16 (max|diff| / max|ref|). The ratio is
PyTorch eager's median over the row's: above 1, the row is faster than eager.

Each row is printed as soon as it is measured, so a run cut short keeps what it measured; at the end a summary gives,
per precision, every model's medians side by side, the median ratio of eager over Kiln and the models below 1.0x.

With --batch 1,8, each model is exported once and measured at each batch size in turn, a row per batch; a model whose
inputs cannot be batched (a pipeline that takes one image) is measured once, at its export's inputs.

Usage: zoo_gpu.py --kiln build/tools/kiln/kiln [--only a,b] [--seconds 2] [--precisions fp32,fp16] [--batch 1,8]
                  [--compile resnet50,vit,...] [--skip-accuracy] [--baseline-kiln other/kiln]
"""
import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
sys.path.insert(0, HERE)
import export_zoo  # noqa: E402
import zoo_engines  # noqa: E402
import zoo_models  # noqa: E402

COMPILED_BY_DEFAULT = "resnet50,vit,convnext,bert,whisper_encoder"  # issue 16's five
EAGER, EAGER_GRAPH, COMPILED = "PyTorch eager", "PyTorch eager + graph", "torch.compile"
KILN, KILN_GRAPH = "Kiln", "Kiln + CUDA graph"
KILN_BASELINE_GRAPH = "Kiln baseline + CUDA graph"
ENGINES = [EAGER, EAGER_GRAPH, COMPILED, KILN, KILN_GRAPH]


def resnet50(small):
    """torchvision's ResNet-50, which the zoo's CTest exports lack (a small Bottleneck ResNet is still megabytes):
    added here for the GPU run only. The small form, for a smoke test, has one block per stage."""
    from torchvision.models import resnet
    if small:
        return zoo_models._image_model(resnet.ResNet(resnet.Bottleneck, [1, 1, 1, 1], num_classes=10), 64)
    return zoo_models._image_model(resnet.resnet50(weights=None), 224)


MODELS = [zoo_models.ZooModel("resnet50", "torchvision", resnet50)] + zoo_models.MODELS


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True, help="path to the kiln executable")
    parser.add_argument("--only", default="", help="comma-separated model names (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed duration per measurement")
    parser.add_argument("--precisions", default="fp32,fp16")
    parser.add_argument("--compile", default=COMPILED_BY_DEFAULT,
                        help="models to time torch.compile on (its autotuning takes minutes each; empty: none)")
    parser.add_argument("--compile-mode", default="max-autotune",
                        help="torch.compile's mode: max-autotune (the default; minutes a model), default, ...")
    parser.add_argument("--batch", default="",
                        help="comma-separated rows per batch (the export's rows repeated) for models whose inputs all "
                             "have a dynamic batch axis, each measured in turn (default: the export's own inputs)")
    parser.add_argument("--skip-accuracy", action="store_true",
                        help="no ONNX Runtime run and no comparison of outputs")
    parser.add_argument("--small", action="store_true", help="the small configurations: a smoke test only")
    parser.add_argument("--baseline-kiln", default="",
                        help="another kiln executable (a baseline build), timed with a CUDA graph right after --kiln "
                             "in the same run, to see a change's effect")
    parser.add_argument("--kiln-backend", choices=["cuda", "cpu"], default="cuda",
                        help="cpu: a smoke test of the kiln side without a GPU (the CPU backend's host Compute Time)")
    args = parser.parse_args()
    if not (os.path.isfile(args.kiln) and os.access(args.kiln, os.X_OK)):
        parser.error(f"--kiln: {args.kiln} is not an executable file")
    if args.baseline_kiln and not (os.path.isfile(args.baseline_kiln) and os.access(args.baseline_kiln, os.X_OK)):
        parser.error(f"--baseline-kiln: {args.baseline_kiln} is not an executable file")
    known = {model.name for model in MODELS}
    args.only = [name for name in args.only.split(",") if name]
    unknown = [name for name in args.only if name not in known]
    if unknown:
        parser.error(f"--only: no model named {', '.join(unknown)}; the zoo has {', '.join(sorted(known))}")
    args.precisions = [p for p in args.precisions.split(",") if p]
    if not args.precisions or any(p not in ("fp32", "fp16") for p in args.precisions):
        parser.error(f"--precisions: expected fp32 and/or fp16, got {','.join(args.precisions) or 'nothing'}")
    args.compile = {name for name in args.compile.split(",") if name}  # names outside the zoo never match
    try:
        args.batch = [int(size) for size in args.batch.split(",") if size] or [0]
    except ValueError:
        parser.error(f"--batch: expected comma-separated positive integers, got {args.batch}")
    if any(size < 1 for size in args.batch) and args.batch != [0]:
        parser.error(f"--batch: expected comma-separated positive integers, got {','.join(map(str, args.batch))}")
    return args


HEADER = (f"{'model':<26} {'prec':<4}  {'engine':<26} {'median ms':>10} {'p99 ms':>9} {'qps':>9} {'eager/x':>7}  "
          f"check")


def print_row(model, precision, engine, figures, eager_ms=None, check=""):
    start = f"{model:<26} {precision.upper():<4}  {engine:<26}"
    if "error" in figures:
        print(f"{start} failed: {figures['error']}", flush=True)
        return
    ratio = f"{eager_ms / figures['median']:7.2f}" if eager_ms and engine != EAGER else f"{'':>7}"
    print(f"{start} {figures['median']:10.3f} {figures['p99']:9.3f} {figures['qps']:9.1f} {ratio}  {check}",
          flush=True)


def describe_check(error, against):
    if error is None:
        return ""
    return f"{error:.2e} vs {against}" if isinstance(error, float) else f"{against}: {error}"


def measure_precision(args, model, label, spec, inputs, kilns, reference, precision, table):
    """Every engine's row for one model at one batch size in one precision, each starting with `label` (the model's
    name, and its batch size where there are several); the medians go into table[(label, precision)]."""
    fp16 = precision == "fp16"
    medians = table.setdefault((label, precision), {})
    expected, against = (reference, "ORT") if not fp16 else (None, "PyTorch FP16")
    try:
        torch_model = zoo_engines.TorchModel(spec.module, inputs, fp16)
    except Exception as error:
        torch_model = None
        for engine in (EAGER, EAGER_GRAPH):
            print_row(label, precision, engine, {"error": f"{type(error).__name__}: {error}"})
    eager_check = ""
    if torch_model:
        if fp16 and not args.skip_accuracy:
            expected = zoo_engines.attempt(torch_model.outputs)
            expected = None if isinstance(expected, dict) else expected
        if fp16 and expected is not None and reference is not None and zoo_engines.is_detections(reference):
            # Detections in FP16 against ONNX Runtime's in FP32, PyTorch's as well as Kiln's: two FP16 engines round
            # differently, and PyTorch suppresses class by class where the export shifts the classes apart.
            eager_check = describe_check(zoo_engines.output_error(expected, reference), "ORT")
            expected, against = reference, "ORT"
        measures = [(EAGER, torch_model.eager), (EAGER_GRAPH, torch_model.cuda_graph)]
        if model.name in args.compile:
            measures.append((COMPILED, lambda seconds: torch_model.compiled(seconds, args.compile_mode)))
        for engine, measure in measures:
            figures = zoo_engines.attempt(measure, args.seconds)
            medians[engine] = figures.get("median")
            check = eager_check if engine == EAGER else ""
            print_row(label, precision, engine, figures, medians.get(EAGER), check)
        torch_model.release()
    names = None if args.skip_accuracy or expected is None else spec.output_names
    kiln, baseline = kilns
    for engine, cuda_graph in ((KILN, False), (KILN_GRAPH, True)):
        figures = kiln.run(fp16, cuda_graph, args.seconds, names)
        medians[engine] = figures.get("median")
        error = zoo_engines.output_error(figures["outputs"], expected) if "outputs" in figures else None
        print_row(label, precision, engine, figures, medians.get(EAGER), describe_check(error, against))
    if baseline:
        figures = baseline.run(fp16, True, args.seconds, None)
        medians[KILN_BASELINE_GRAPH] = figures.get("median")
        print_row(label, precision, KILN_BASELINE_GRAPH, figures, medians.get(EAGER))


def measure_model(args, model, root, table):
    """Exports the model once, then measures it at each batch size of --batch, a folder of plans for each."""
    import torch

    directory = os.path.join(root, model.name)
    try:
        path, _, spec = export_zoo.export(model, args.small, directory)
    except Exception as error:  # an export failure is a row, not the end of the table
        print(f"{model.name:<26} export failed: {type(error).__name__}: {str(error)[:160]}", flush=True)
        return
    measured_shapes = set()
    for batch in args.batch:
        inputs = zoo_engines.batched_inputs(spec, batch)
        shapes = tuple(tuple(t.shape) for t in inputs)
        if shapes in measured_shapes:  # inputs that cannot be batched: measured once
            continue
        measured_shapes.add(shapes)
        batched = any(grown is not own for grown, own in zip(inputs, spec.inputs))
        label = f"{model.name} b{batch}" if batched and len(args.batch) > 1 else model.name
        folder = os.path.join(directory, f"batch_{batch}")
        os.makedirs(folder, exist_ok=True)
        try:
            reference = None
            if not args.skip_accuracy and "fp32" in args.precisions:
                reference = export_zoo.reference(path, [t.numpy() for t in inputs], folder)
        except Exception as error:
            print(f"{label:<26} ONNX Runtime failed: {type(error).__name__}: {str(error)[:160]}", flush=True)
            continue
        described = ", ".join(f"{name} {list(t.shape)}" for name, t in zip(spec.input_names, inputs))
        print(f"{label:<26} ({model.source}) {described}", flush=True)
        kiln = zoo_engines.KilnModel(args.kiln, args.kiln_backend, path, spec.input_names, inputs, folder)
        baseline = None
        if args.baseline_kiln:
            baseline_folder = os.path.join(folder, "baseline")  # its own plans
            os.makedirs(baseline_folder, exist_ok=True)
            baseline = zoo_engines.KilnModel(args.baseline_kiln, args.kiln_backend, path, spec.input_names, inputs,
                                             baseline_folder)
        for precision in args.precisions:
            measure_precision(args, model, label, spec, inputs, (kiln, baseline), reference, precision, table)
    del spec
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def print_summary(table, precisions, engines):
    """The medians side by side, and per precision the median ratio of eager over Kiln and the models below 1.0x."""
    short = {EAGER: "eager", EAGER_GRAPH: "eager+graph", COMPILED: "compile", KILN: "Kiln", KILN_GRAPH: "Kiln+graph",
             KILN_BASELINE_GRAPH: "base+graph"}
    print("\nSummary: median ms; ratio = PyTorch eager / Kiln (above 1.0x, Kiln is faster)")
    print(f"{'model':<26} {'prec':<4} " + " ".join(f"{short[e]:>11}" for e in engines)
          + f" {'eager/Kiln':>10} {'eager/Kiln+graph':>16}")
    ratios = {}
    for (name, precision), medians in table.items():
        cells = " ".join(f"{medians[e]:11.3f}" if medians.get(e) else f"{'-':>11}" for e in engines)
        row = []
        for engine in (KILN, KILN_GRAPH):
            if medians.get(EAGER) and medians.get(engine):
                ratio = medians[EAGER] / medians[engine]
                ratios.setdefault((precision, engine), []).append((name, ratio))
                row.append(f"{ratio:.2f}x")
            else:
                row.append("-")
        print(f"{name:<26} {precision.upper():<4} {cells} {row[0]:>10} {row[1]:>16}")
    for precision in precisions:
        for engine in (KILN, KILN_GRAPH):
            found = ratios.get((precision, engine), [])
            if not found:
                continue
            below = [f"{name} ({ratio:.2f}x)" for name, ratio in found if ratio < 1.0]
            print(f"{precision.upper()} eager/{engine}: median {statistics.median(r for _, r in found):.2f}x over "
                  f"{len(found)} models; below 1.0x: {', '.join(below) or 'none'}")


def main():
    args = parse_args()
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    print(f"GPU: {gpu or 'none (the PyTorch rows fail)'}; PyTorch {torch.__version__}; Kiln: {args.kiln} "
          f"--backend={args.kiln_backend}; {args.seconds} s per measurement; torch.compile mode {args.compile_mode}; "
          f"batch: {','.join(map(str, args.batch)) if args.batch != [0] else 'the exports'}")
    print(HEADER, flush=True)
    table = {}
    with tempfile.TemporaryDirectory() as root:
        for model in MODELS:
            if not args.only or model.name in args.only:
                measure_model(args, model, root, table)
    print_summary(table, args.precisions, ENGINES + ([KILN_BASELINE_GRAPH] if args.baseline_kiln else []))
    return 0 if gpu else 1


if __name__ == "__main__":
    sys.exit(main())
