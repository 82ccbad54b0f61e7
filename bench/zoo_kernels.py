#!/usr/bin/env python3
"""Kiln's kernels beside PyTorch's on the zoo's real-size models, kernel by kernel (issue 16's question: where does
the GPU time go that PyTorch's kernels do not spend?).

For each model and precision, one process runs the export on Kiln's CUDA backend through the Python API (the engine
built as `kiln --shapes` builds it: one profile pinned at the export's shapes) and the module in PyTorch eager, and
optionally under torch.compile (max-autotune-no-cudagraphs by default), each under torch.profiler for a few inferences.
CUPTI records every kernel's own duration, without the serialization or timing events a per-layer profile adds. It
prints, per engine, the kernel time of one inference by kind (matrix multiply, attention, normalization, ...) and
its largest kernels, so that the same work can be compared across engines.

Usage: zoo_kernels.py --only bert,vit [--precisions fp16,fp32] [--batch 8] [--compile bert [--compile-mode default]]
    [--top 15]
Needs Kiln's Python package on PYTHONPATH (scripts/device/kernels-zoo.sh builds it), torch and the zoo's exporters.
"""
import argparse
import collections
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "models"))
sys.path.insert(0, HERE)
import export_zoo  # noqa: E402
import zoo_engines  # noqa: E402
import zoo_gpu  # noqa: E402

INFERENCES = 10  # profiled per engine, after warm-up; the figures are per inference

# A kernel's kind, by its name: the first pattern that matches (case-insensitive) names it. Kernels that fuse several
# kinds go by the first (Triton's matrix-multiply templates with a normalization epilogue are matrix multiplies).
KINDS = [
    ("attention", r"flash|fmha|attention|sdpa"),
    ("convolution", r"conv|fprop|implicit|wgrad|dgrad|winograd"),
    ("matrix multiply", r"gemm|xmma|cutlass|matmul|nvjet|triton_tem|addmm|splitkreduce|cublas|_mm_"),
    ("normalization", r"norm|RowProblem"),  # Kiln's row kernels take a RowProblem
    ("softmax", r"softmax|registerRowKernel"),
    ("gather / embedding", r"gather|index|embedding"),
    ("copy / transpose / concat", r"copy|transpose|permute|cat|slice|reformat|shuffle|memcpy|memset|moveRows"),
    ("reduction", r"reduce"),
    ("point-wise", r"elementwise|pointwise|unary|activation|vectorized|triton_poi|add|mul|gelu|scale|cast|where|select"),
]


def kind_of(kernel):
    for kind, pattern in KINDS:
        if re.search(pattern, kernel, re.IGNORECASE):
            return kind
    return "other"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", required=True, help="comma-separated model names")
    parser.add_argument("--precisions", default="fp16,fp32")
    parser.add_argument("--compile", default="", help="models to also profile under torch.compile (minutes each)")
    parser.add_argument("--compile-mode", default="max-autotune-no-cudagraphs",
                        help="torch.compile's mode; one that replays CUDA graphs runs the same kernels as its mode "
                             "without them (reduce-overhead: default)")
    parser.add_argument("--batch", type=int, default=0,
                        help="rows of every input, where the export's batch axis is dynamic (0: the export's own)")
    parser.add_argument("--top", type=int, default=15, help="largest kernels listed per engine")
    return parser.parse_args()


def kernel_times(run):
    """Kernel name -> (microseconds per inference, launches per inference) over INFERENCES calls of `run`."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as recorded:
        for _ in range(INFERENCES):
            run()
        torch.cuda.synchronize()
    totals = collections.defaultdict(lambda: [0.0, 0])
    for event in recorded.events():
        if event.device_type == torch.autograd.DeviceType.CUDA and event.device_time > 0:
            totals[event.name][0] += event.device_time / INFERENCES
            totals[event.name][1] += 1 / INFERENCES
    return totals


def torch_output_allocator(trt):
    """A trt.IOutputAllocator whose memory is torch's, grown when a run needs more and kept for later runs."""
    import torch

    class Allocator(trt.IOutputAllocator):
        def __init__(self):
            trt.IOutputAllocator.__init__(self)
            self.buffers = {}

        def reallocate_output(self, name, memory, size, alignment):
            if name not in self.buffers or self.buffers[name].numel() < size:
                self.buffers[name] = torch.empty(max(size, 1), dtype=torch.uint8, device="cuda")
            return self.buffers[name].data_ptr()

        def notify_shape(self, name, shape):
            pass

    return Allocator()


class KilnEngine:
    """The export on Kiln's CUDA backend through the Python API, on torch tensors and torch's current stream."""

    def __init__(self, onnx_path, names, inputs, fp16):
        import torch
        import kiln.tensorrt as trt

        logger = trt.Logger(trt.Logger.WARNING)
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        parser = trt.OnnxParser(network, logger)
        if not parser.parse_from_file(onnx_path):
            raise RuntimeError("; ".join(str(parser.get_error(i)) for i in range(parser.num_errors)))
        config = builder.create_builder_config()
        if fp16:
            config.set_flag(trt.BuilderFlag.FP16)
        profile = builder.create_optimization_profile()
        for name, tensor in zip(names, inputs):
            profile.set_shape(name, tuple(tensor.shape), tuple(tensor.shape), tuple(tensor.shape))
        config.add_optimization_profile(profile)
        plan = builder.build_serialized_network(network, config)
        if plan is None:
            raise RuntimeError("the build failed")
        self.engine = trt.Runtime(logger).deserialize_cuda_engine(plan)
        self.context = self.engine.create_execution_context()
        torch_types = {trt.float32: torch.float32, trt.float16: torch.float16, trt.int32: torch.int32,
                       trt.int64: torch.int64, trt.bool: torch.bool}
        self.tensors = {}
        for name, tensor in zip(names, inputs):
            self.tensors[name] = tensor.to("cuda", torch_types[self.engine.get_tensor_dtype(name)]).contiguous()
            self.context.set_input_shape(name, tuple(tensor.shape))
        self.allocator = torch_output_allocator(trt)
        for index in range(self.engine.num_io_tensors):
            name = self.engine.get_tensor_name(index)
            shape = tuple(self.context.get_tensor_shape(name))
            if name in self.tensors:
                self.context.set_tensor_address(name, self.tensors[name].data_ptr())
            elif -1 in shape:  # data-dependent (the SSDlite pipeline's detections): sized by the run
                self.context.set_output_allocator(name, self.allocator)
            else:
                self.tensors[name] = torch.empty(shape, dtype=torch_types[self.engine.get_tensor_dtype(name)],
                                                 device="cuda")
                self.context.set_tensor_address(name, self.tensors[name].data_ptr())

    def __call__(self):
        import torch

        if not self.context.execute_async_v3(torch.cuda.current_stream().cuda_stream):
            raise RuntimeError("enqueueV3 failed")


def report(engine, totals, top):
    total = sum(us for us, _ in totals.values())
    launches = sum(count for _, count in totals.values())
    print(f"  {engine}: {total / 1000:.3f} ms of kernels per inference, {launches:.0f} launches")
    by_kind = collections.defaultdict(lambda: [0.0, 0])
    for name, (us, count) in totals.items():
        by_kind[kind_of(name)][0] += us
        by_kind[kind_of(name)][1] += count
    for kind, (us, count) in sorted(by_kind.items(), key=lambda item: -item[1][0]):
        print(f"    {us:9.1f} us {count:5.0f} x  {kind}")
    print("    largest kernels:")
    for name, (us, count) in sorted(totals.items(), key=lambda item: -item[1][0])[:top]:
        print(f"    {us:9.1f} us {count:5.0f} x  {name[:150]}")
    sys.stdout.flush()


def profile_model(model, folder, args):
    import torch

    path, _, spec = export_zoo.export(model, False, folder)
    inputs = zoo_engines.batched_inputs(spec, args.batch)
    for precision in args.precisions.split(","):
        fp16 = precision == "fp16"
        print(f"{model.name} {precision}, inputs {[tuple(tensor.shape) for tensor in inputs]}", flush=True)
        engines = [("Kiln", lambda: KilnEngine(path, spec.input_names, inputs, fp16))]
        reference = zoo_engines.TorchModel(spec.module, inputs, fp16)
        eager = lambda: reference.module(*reference.inputs)  # noqa: E731
        engines.append(("PyTorch eager", lambda: eager))
        if model.name in args.compile.split(","):
            compiled = torch.compile(reference.module, mode=args.compile_mode)
            engines.append(("torch.compile", lambda: lambda: compiled(*reference.inputs)))
        with torch.inference_mode():
            for name, make in engines:
                try:
                    report(name, kernel_times(make()), args.top)
                except Exception as error:
                    print(f"  {name}: {type(error).__name__}: {' '.join(str(error).split())[:200]}", flush=True)
        reference.release()


def main():
    args = parse_args()
    import torch

    # FP32 on the CUDA cores on both sides, as zoo_gpu.py times it: PyTorch's cuDNN convolutions default to TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    wanted = args.only.split(",")
    with tempfile.TemporaryDirectory() as root:
        for model in zoo_gpu.MODELS:
            if model.name in wanted:
                profile_model(model, os.path.join(root, model.name), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
