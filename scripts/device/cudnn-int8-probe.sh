#!/bin/bash
# On the GPU machine (see README.md; run from .debs/, as the others): bench/cudnn_int8_probe.cpp, cuDNN's INT8
# convolutions beside its FP16 ones on ResNet-50's layer shapes, at the batch given (default 256); the table to stdout
# and $OUT/cudnn_int8_probe.txt. A few seconds.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
nvcc -O2 bench/cudnn_int8_probe.cpp -lcudnn -o /tmp/cudnn_int8_probe || exit 1
/tmp/cudnn_int8_probe "${1:-256}" | tee "$OUT/cudnn_int8_probe.txt"
