#!/bin/bash
# On the GPU machine (see README.md): enqueueV3's host time per layer on the CUDA backend (bench/host_path.cpp),
# for the working tree and, where a baseline source tree is given, for it too, built alike and run in
# turns on one machine, so that a change to the host path is compared with what it replaced.
#   bench-host-path.sh [BASELINE] [kiln_bench_host_path flags]   BASELINE: a source tree carried beside the working
#                                      tree (made here with `git archive <commit> | tar -x -C .debs/base`), or ''
here=$(cd "$(dirname "$0")" && pwd)
baseline=${1:-}
shift
cd "$here/.."
source "$here/build-kiln.sh"
cmake --build /tmp/build-bench -j16 --target kiln_bench_host_path > /tmp/build-host-path.log 2>&1 ||
  { grep -E "error" -A3 /tmp/build-host-path.log | head -40; exit 1; }
binaries=(/tmp/build-bench/bench/kiln_bench_host_path)
if [ -n "$baseline" ]; then
  baseline=$(cd "$baseline" && pwd) || { echo "bench-host-path.sh: no baseline source tree at $1"; exit 1; }
  # The baseline, built the same way into a folder of its own.
  (cd "$baseline" && sed 's|/tmp/build-bench|/tmp/build-baseline|g' "$here/build-kiln.sh" > /tmp/build-baseline.sh &&
    source /tmp/build-baseline.sh && cmake --build /tmp/build-baseline -j16 --target kiln_bench_host_path \
    > /tmp/build-baseline-host-path.log 2>&1) || { grep -E "error" -A3 /tmp/build-baseline-host-path.log | head; exit 1; }
  binaries=(/tmp/build-baseline/bench/kiln_bench_host_path "${binaries[@]}")
fi
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
# Each binary twice, in turns, at 100 and 1000 layers: host timings drift with the machine's load.
for layers in 100 1000; do
  for round in 1 2; do
    for binary in "${binaries[@]}"; do
      echo "== $binary, $layers layers, round $round" | tee -a $OUT/host_path.txt
      "$binary" --backend=cuda --layers=$layers "$@" 2>&1 | tee -a $OUT/host_path.txt
    done
  done
done
