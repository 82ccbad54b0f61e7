#!/bin/bash
# On the GPU machine (see README.md; run from .debs/, as the others): cuDNN's INT8 convolutions on ResNet-50's layer
# shapes, at the batch given (default 256; a second argument, e.g. "stem", runs the graph probe on the layers whose
# names contain it, alone): bench/cudnn_int8_probe.cpp (the legacy API beside its FP16) and
# bench/cudnn_int8_graph_probe.cpp (the graph API with Model Optimizer's epilogue: per-channel scale, bias, residual,
# ReLU, INT8 out). The tables to
# stdout and $OUT/cudnn_int8_probe.txt, $OUT/cudnn_int8_graph_probe.txt. Seconds, or a minute where cuDNN compiles
# engines at run time.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
nvcc -O2 bench/cudnn_int8_probe.cpp -lcudnn -o /tmp/cudnn_int8_probe || exit 1
nvcc -O2 -std=c++17 -Isrc bench/cudnn_int8_graph_probe.cpp src/backend/cuda/libraries/cudnn/cudnn_backend.cpp \
    -lcudnn -o /tmp/cudnn_int8_graph_probe || exit 1
/tmp/cudnn_int8_graph_probe "${1:-256}" "${2:-}" | tee "$OUT/cudnn_int8_graph_probe.txt"
[ -n "${2:-}" ] || /tmp/cudnn_int8_probe "${1:-256}" | tee "$OUT/cudnn_int8_probe.txt"
