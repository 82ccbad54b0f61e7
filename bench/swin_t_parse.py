"""Parse time of torchvision's swin_t, exported as issue 50 found it, with Kiln beside ONNX Runtime.

Exports swin_t (random weights, batch 8) with PyTorch's TorchScript exporter (opset 17) unless the model file exists,
then times Kiln's parser on it (kiln_bench_network_construction --onnx, which also prints the API figures) and, where
onnxruntime is installed, building an ONNX Runtime CPU InferenceSession from the same file. torchvision's Swin computes
its padding, shift and mask from `x.shape` in every block, so the export holds thousands of small shape
computations: a test of how parsing scales with the model's size.

    python bench/swin_t_parse.py --bench build/bench/kiln_bench_network_construction [--model /tmp/swin_t.onnx]

Needs torch, torchvision and onnx to export (e.g. a virtual environment outside the repository).
"""
import argparse
import os
import subprocess
import time


def export(path, batch):
    import onnx
    import torch
    import torchvision

    model = torchvision.models.swin_t(weights=None).eval()
    x = torch.randn(batch, 3, 224, 224)
    torch.onnx.export(model, (x,), path, dynamo=False, opset_version=17, input_names=["input"],
                      output_names=["logits"])
    graph = onnx.load(path, load_external_data=False).graph
    print(f"exported {path}: {len(graph.node)} nodes, {len(graph.initializer)} initializers "
          f"(torch {torch.__version__}, torchvision {torchvision.__version__})")


def time_onnxruntime(path):
    try:
        import onnxruntime
    except ImportError:
        print("onnxruntime is not installed: no comparison")
        return
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    print(f"onnxruntime {onnxruntime.__version__} session creation: {time.perf_counter() - start_wall:.3f} s wall, "
          f"{time.process_time() - start_cpu:.3f} s cpu")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True, help="the kiln_bench_network_construction program")
    parser.add_argument("--model", default="/tmp/swin_t.onnx", help="the exported model (made if absent)")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--layers", default="10000,20000", help="layer counts for the API figures")
    args = parser.parse_args()
    if not os.path.exists(args.model):
        export(args.model, args.batch)
    subprocess.run([args.bench, "--layers", args.layers, "--onnx", args.model], check=True)
    time_onnxruntime(args.model)


if __name__ == "__main__":
    main()
