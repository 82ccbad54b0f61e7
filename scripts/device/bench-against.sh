#!/bin/bash
# On the GPU machine (see README.md): Kiln alone, timed on ResNet-50 for the working tree and for a baseline source
# tree side by side in one run, so that a change's speed is compared on one GPU (a refactor must not slow Kiln).
#   bench-against.sh BASELINE [resnet50_gpu.py flags]   BASELINE: a source tree carried beside the working tree,
#                                                       e.g. made here with `git archive <commit> | tar -x -C .base`.
here=$(cd "$(dirname "$0")" && pwd)
baseline=$(cd "$1" && pwd) || { echo "bench-against.sh: no baseline source tree at $1"; exit 1; }
shift
cd "$here/.."
source "$here/build-kiln.sh"
current=$kiln
# The baseline, built the same way into a folder of its own.
(cd "$baseline" && sed 's|/tmp/build-bench|/tmp/build-baseline|g' "$here/build-kiln.sh" > /tmp/build-baseline.sh &&
  source /tmp/build-baseline.sh) || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for tree in baseline current; do
  binary=$([ $tree = baseline ] && echo /tmp/build-baseline/tools/kiln/kiln || echo "$current")
  echo "== $tree"
  python3 bench/resnet50_gpu.py --kiln "$binary" --kiln-only "$@" 2>> $OUT/bench-against.log |
    tee -a $OUT/bench-against.txt
done
