#!/bin/bash
# On the GPU machine (see README.md): builds kiln with CUDA and runs bench/resnet50_gpu.py beside PyTorch.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
source "$here/build-kiln.sh"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
# The table on stdout (and in resnet50_gpu.txt); export warnings and torch.compile's autotuning reports in a log.
python3 bench/resnet50_gpu.py --kiln "$kiln" "$@" 2> $OUT/resnet50_gpu.log | tee $OUT/resnet50_gpu.txt
