"""CTest entry: ResNet-, MobileNetV2- and YOLO-head-shaped models and single-op models run in Kiln and in ONNX
Runtime, compared within fp32 tolerances. Usage: run_architecture_tests.py PATH/TO/onnx_run_model [--backend=cpu|cuda]
(cpu by default). Exits 77 (CTest's SKIP_RETURN_CODE for this test) when onnx, onnxruntime or numpy cannot be
imported, and when the runner says the backend cannot run here (no CUDA backend in the build, or no usable GPU)."""

import argparse
import sys

SKIP = 77

try:
    import numpy  # noqa: F401
    import onnx  # noqa: F401
    import onnxruntime  # noqa: F401
except ImportError as missing:
    print(f"SKIPPED: {missing}; install them with: python3 -m pip install -r tests/requirements.txt")
    sys.exit(SKIP)

import math

import models
from kiln_vs_onnxruntime import BackendUnavailable, compare


def conv_tolerance(longest_reduction):
    # Kiln and ONNX Runtime sum a convolution's or matmul's products in different orders; fp32 rounding of a sum of n
    # terms grows like sqrt(n) ulps, so the absolute tolerance scales with sqrt(n / 16) once n exceeds 16. The same
    # bound holds on the CUDA backend: cuDNN and cuBLAS run fp32 there without TF32, only in another order again.
    return 1e-5 * max(1.0, math.sqrt(longest_reduction / 16.0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runner", help="the onnx_run_model executable")
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu", help="the Kiln backend to run on")
    args = parser.parse_args()
    cases = [
        # Longest reductions: ResNet's 3x3 convolution over 32 channels (288 terms); MobileNetV2's 1x1 projection
        # over 48 channels; the YOLO head's 1x1 convolution over 24 channels.
        (*models.resnet(), conv_tolerance(32 * 9)),
        (*models.mobilenet_v2(), conv_tolerance(48)),
        (*models.yolo_head(), conv_tolerance(24)),
        # Longest reduction: the feed-forward layer's second product over 40 values.
        (*models.transformer_block(), conv_tolerance(40)),
    ]
    # The YOLO head scales boxes by up to 119 pixels: its relative tolerance is what matters there.
    cases += [(*m, 1e-5) for m in models.op_models()]
    failures = []
    for index, (model, inputs, atol) in enumerate(cases):
        try:
            compare(args.runner, model, inputs, atol=atol, backend=args.backend)
            print(f"ok    {model.graph.name}")
        except BackendUnavailable as reason:
            if index == 0:
                # The first model tells whether the backend can run here at all: if not, the whole test is skipped.
                print(f"SKIPPED: {reason}")
                return SKIP
            # Once one model has run, the backend is there: a later refusal is a failure, not a skip.
            failures.append(f"{model.graph.name}: the runner exited {SKIP}: {reason}")
            print(f"FAIL  {failures[-1]}")
        except AssertionError as error:
            failures.append(str(error))
            print(f"FAIL  {error}")
    print(f"{len(cases) - len(failures)} of {len(cases)} models match ONNX Runtime on Kiln's {args.backend} backend")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
