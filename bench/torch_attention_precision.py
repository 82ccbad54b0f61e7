#!/usr/bin/env python3
"""What PyTorch's FP32 attention computes on this GPU: the kernels its scaled_dot_product_attention runs in FP32, and
the error of its default path, of its math path without TF32 and of that path with TF32, each against the same
attention in FP64 (largest difference over the largest output). Kiln's FP32 attention multiplies in 3xTF32 where it
fills the GPU (src/backend/cuda/kernels/attention/attention_fp32_tensor_cores.cu); this says what PyTorch's does
beside it. Nothing is timed.

Usage: torch_attention_precision.py [--shape 8,6,1500,64] [--seed 0]   (batch, heads, tokens, depth: Whisper's)
"""
import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="8,6,1500,64", help="batch,heads,tokens,depth")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    shape = [int(n) for n in args.shape.split(",")]
    if len(shape) != 4 or min(shape) < 1:
        parser.error(f"--shape: four positive sizes (batch,heads,tokens,depth), not {args.shape!r}")
    if not torch.cuda.is_available():
        raise SystemExit("torch_attention_precision.py: no CUDA device")
    torch.manual_seed(args.seed)
    q, k, v = (torch.randn(*shape, device="cuda") for _ in range(3))
    reference = F.scaled_dot_product_attention(q.double(), k.double(), v.double())

    def error(out):
        return ((out.double() - reference).abs().max() / reference.abs().max()).item()

    torch.backends.cuda.matmul.allow_tf32 = False
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        out = F.scaled_dot_product_attention(q, k, v)
        torch.cuda.synchronize()
    kernels = sorted({e.name for e in prof.events() if e.device_type.name == "CUDA"})
    print(f"GPU: {torch.cuda.get_device_name()}; PyTorch {torch.__version__}; q, k, v {shape}, normal, seed {args.seed}")
    print("FP32 scaled_dot_product_attention runs:", "; ".join(kernels))
    print(f"error of the default FP32 path:       {error(out):.2e}")
    with sdpa_kernel(SDPBackend.MATH):
        print(f"error of the math path without TF32: {error(F.scaled_dot_product_attention(q, k, v)):.2e}")
        torch.backends.cuda.matmul.allow_tf32 = True
        print(f"error of the math path with TF32:    {error(F.scaled_dot_product_attention(q, k, v)):.2e}")


if __name__ == "__main__":
    main()
