"""The measurements of bench/zoo_gpu.py: one model on Kiln (the kiln command, enqueued or replayed from a CUDA graph)
and on PyTorch (eager, eager replayed from a CUDA graph, torch.compile), each giving latency median and p99 (ms) and
throughput (qps), or the reason it has none; and the accuracy figure that compares two sets of outputs."""
import copy
import os
import re
import subprocess

import numpy as np

from plugin_timing import first_error, read_outputs
from resnet50_gpu import time_callable


def batched_inputs(spec, batch):
    """The export's inputs with `batch` rows, its rows repeated, when every input's axis 0 is dynamic; otherwise (a
    pipeline that takes one image) the export's own."""
    import torch

    if not batch or any(0 not in spec.dynamic_axes.get(name, {}) for name in spec.input_names):
        return list(spec.inputs)
    grown = []
    for tensor in spec.inputs:
        copies = -(-batch // tensor.shape[0])
        grown.append(torch.cat([tensor] * copies)[:batch].contiguous())
    return grown


def scaled_error(actual, expected):
    """max|diff| / max|ref| over all outputs, or a word saying why there is no such figure."""
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, {len(expected)} expected"
    if not any(np.asarray(want).size for want in expected):
        return "empty outputs, nothing to compare"
    worst = 0.0
    for got, want in zip(actual, expected):
        got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
        if got.shape != want.shape:
            return f"shape {list(got.shape)}, expected {list(want.shape)}"
        if np.isnan(got).sum() > np.isnan(want).sum():
            return f"{int(np.isnan(got).sum())} NaN"
        if got.size:
            worst = max(worst, float(np.nanmax(np.abs(got - want)) / max(np.nanmax(np.abs(want)), 1e-30)))
    return worst


def is_detections(expected):
    """Detections as torchvision's detection pipelines return them: boxes [K, 4], scores [K], labels [K]."""
    return (len(expected) == 3 and np.ndim(expected[0]) == 2 and np.shape(expected[0])[1] == 4
            and np.shape(expected[1]) == np.shape(expected[0])[:1] == np.shape(expected[2]))


def box_overlap(box, boxes):
    """Intersection over union of one (x1, y1, x2, y2) box with each of `boxes`."""
    low, high = np.maximum(box[:2], boxes[:, :2]), np.minimum(box[2:], boxes[:, 2:])
    inter = np.prod(np.clip(high - low, 0, None), axis=1)
    area = lambda b: np.prod(np.clip(b[..., 2:] - b[..., :2], 0, None), axis=-1)  # noqa: E731
    return inter / np.maximum(area(box) + area(boxes) - inter, 1e-30)


def detection_agreement(actual, expected, score_tolerance=0.05, overlap=0.5):
    """How well detections agree with the expected ones, as one line. Detections whose scores differ by less than the
    rounding of a precision come in no order the model fixes, and which of two such boxes of one object the
    non-maximum suppression keeps is a tie too. So each expected detection, best first, takes the unmatched actual one
    of its label whose score is within score_tolerance and which overlaps it most, if by `overlap` (IoU) at least.
    Expected detections left over whose scores lie within the tolerance of the lowest kept score may have been pushed
    out of the top detections by such a tie; any other is a real difference."""
    boxes, scores, labels = (np.asarray(a, dtype=np.float64) for a in actual)
    want_boxes, want_scores, want_labels = (np.asarray(a, dtype=np.float64) for a in expected)
    taken = np.zeros(len(scores), dtype=bool)
    score_gaps, overlaps, missed = [], [], []
    for e in np.argsort(-want_scores, kind="stable"):
        candidates = np.flatnonzero(~taken & (labels == want_labels[e])
                                    & (np.abs(scores - want_scores[e]) <= score_tolerance))
        fits = box_overlap(want_boxes[e], boxes[candidates]) if candidates.size else np.zeros(0)
        if fits.size and fits.max() >= overlap:
            best = candidates[np.argmax(fits)]
            taken[best] = True
            score_gaps.append(abs(scores[best] - want_scores[e]))
            overlaps.append(fits.max())
        else:
            missed.append(want_scores[e])
    cutoff = want_scores.min() if want_scores.size else 0.0
    line = f"{len(score_gaps)}/{len(want_scores)} matched"
    if score_gaps:
        line += f" (|dscore| <= {max(score_gaps):.1e}, IoU >= {min(overlaps):.3f})"
    near_cutoff = sum(score <= cutoff + score_tolerance for score in missed)
    if missed:
        line += f", {len(missed)} not ({near_cutoff} within {score_tolerance:g} of the last score, {cutoff:.3f})"
    return line


def output_error(actual, expected):
    """detection_agreement's line for detections, whose order ties decide; scaled_error's figure for the rest."""
    if is_detections(expected) and len(actual) == len(expected):
        return detection_agreement(actual, expected)
    return scaled_error(actual, expected)


def read_kiln_outputs(path, names):
    """kiln --exportOutput's outputs as float64 arrays, in the order of `names` (a NaN, JSON's null, reads as NaN)."""
    outputs = read_outputs(path)
    return [np.asarray(outputs[name], dtype=np.float64) for name in names]


class KilnModel:
    """The kiln command on one exported model and its inputs (written as raw files for --loadInputs, so that token
    ids stay in the vocabulary). The first run of each precision saves the plan and the CUDA-graph run loads it."""

    def __init__(self, kiln, backend, onnx_path, names, inputs, folder):
        self.kiln, self.backend, self.onnx_path, self.folder = kiln, backend, onnx_path, folder
        shapes, loads = [], []
        for i, (name, tensor) in enumerate(zip(names, inputs)):
            raw = os.path.join(folder, f"input_{i}.bin")
            tensor.numpy().tofile(raw)
            shapes.append(f"{name}:{'x'.join(str(d) for d in tensor.shape)}")
            loads.append(f"{name}:{raw}")
        self.common = [f"--backend={backend}", f"--shapes={','.join(shapes)}", f"--loadInputs={','.join(loads)}",
                       "--noDataTransfers", "--warmUp=500", "--percentile=99"]

    def run(self, fp16, cuda_graph, seconds, output_names):
        """Figures from kiln's report ({"median", "p99", "qps"}; GPU Compute Time, and kiln's Throughput), with
        "outputs" (the last inference's, in the order of output_names) when output_names is given."""
        plan = os.path.join(self.folder, f"plan_{'fp16' if fp16 else 'fp32'}.kiln")
        command = [self.kiln, f"--duration={seconds}"] + self.common
        if cuda_graph and os.path.exists(plan):
            command.append(f"--loadEngine={plan}")
        else:
            command += [f"--onnx={self.onnx_path}", f"--saveEngine={plan}"] + (["--fp16"] if fp16 else [])
        if cuda_graph:
            command.append("--useCudaGraph")
        exported = os.path.join(self.folder, "outputs.json")
        if output_names:
            command.append(f"--exportOutput={exported}")
        run = subprocess.run(command, capture_output=True, text=True)
        report = run.stdout + run.stderr
        # "GPU Compute Time" on the CUDA backend, "Compute Time" (the host's) on the CPU backend.
        compute = re.search(r"Compute Time: .*median = ([\d.e+-]+) ms, percentile\(99%\) = ([\d.e+-]+) ms", report)
        throughput = re.search(r"Throughput: ([\d.e+-]+) qps", report)
        if run.returncode != 0 or not (compute and throughput):
            return {"error": f"kiln: {first_error(report)}"}
        figures = {"median": float(compute.group(1)), "p99": float(compute.group(2)),
                   "qps": float(throughput.group(1))}
        if output_names:
            figures["outputs"] = read_kiln_outputs(exported, output_names)
            os.remove(exported)
        return figures


def _as_numpy_list(result):
    results = result if isinstance(result, (tuple, list)) else (result,)
    return [tensor.detach().float().cpu().numpy() for tensor in results]


class TorchModel:
    """The zoo's module on the GPU in one precision: floating-point parameters and inputs in that precision, integer
    inputs (token ids, masks) as they are."""

    def __init__(self, module, inputs, fp16):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device (torch.cuda.is_available() is False)")
        dtype = torch.float16 if fp16 else torch.float32
        # eval() again: torch.onnx.export restores the mode the top module had, and the zoo's wrappers around an
        # eval-mode model are made in training mode, so after the export their dropouts would be on.
        self.module = copy.deepcopy(module).eval().to("cuda", dtype)
        self.inputs = [t.to("cuda", dtype) if t.is_floating_point() else t.to("cuda") for t in inputs]

    def outputs(self):
        import torch

        with torch.inference_mode():
            return _as_numpy_list(self.module(*self.inputs))

    def eager(self, seconds):
        import torch

        with torch.inference_mode():
            return time_callable(lambda: self.module(*self.inputs), seconds)

    def cuda_graph(self, seconds):
        """Eager replayed from a CUDA graph, captured after warm-up on a side stream (torch.cuda.graphs' recipe)."""
        import torch

        with torch.inference_mode():
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(3):
                    self.module(*self.inputs)
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                self.module(*self.inputs)
            figures = time_callable(graph.replay, seconds)
        del graph
        return figures

    def compiled(self, seconds, mode="max-autotune"):
        """torch.compile in `mode`; its first call compiles (and autotunes), outside the timing."""
        import torch

        compiled = torch.compile(self.module, mode=mode)
        with torch.inference_mode():
            compiled(*self.inputs)
            return time_callable(lambda: compiled(*self.inputs), seconds)

    def release(self):
        import torch

        del self.module, self.inputs
        torch._dynamo.reset()
        torch.cuda.empty_cache()


def attempt(measure, *args):
    """A measurement's figures, or {"error": why} when it raises: one engine's failure is a row, not the table's
    end."""
    try:
        return measure(*args)
    except Exception as error:
        return {"error": f"{type(error).__name__}: {' '.join(str(error).split())[:160]}"}
