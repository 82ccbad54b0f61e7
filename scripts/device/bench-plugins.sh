#!/bin/bash
# On the GPU machine (see README.md): builds kiln with CUDA and runs bench/plugins_gpu.py, each plugin of the
# collection beside its torchvision op or PyTorch composite. Arguments go to plugins_gpu.py (--fp16, --only...).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
source "$here/build-kiln.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
# The table on stdout (and in plugins_gpu.txt), one row as each case is measured; warnings in a log.
python3 -u bench/plugins_gpu.py --kiln "$kiln" "$@" 2> $OUT/plugins_gpu.log | tee $OUT/plugins_gpu.txt
