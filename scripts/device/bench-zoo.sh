#!/bin/bash
# On the GPU machine (see README.md): builds kiln with CUDA and runs bench/zoo_gpu.py, the model zoo at real sizes
# beside PyTorch (eager, eager + CUDA graph, torch.compile), FP32 and FP16. Arguments go to zoo_gpu.py (--only,
# --seconds, --precisions, --batch, --compile, --compile-mode, --skip-accuracy; BASELINE=TREE in the environment adds
# a baseline's kiln).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
source "$here/build-kiln.sh"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
# The machine has no network: the zoo's models are made from their configurations (random weights), and nothing
# should try the Hugging Face hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# torch.compile's autotuning timings, kept from machine to machine (inductor-cache.sh).
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-cache}
bash "$here/inductor-cache.sh" restore
# BASELINE=TREE (a source tree carried beside the working tree, as for bench-against.sh) builds that tree too and
# times its kiln with a CUDA graph beside the working tree's, in the same run.
baseline_flags=()
if [ -n "${BASELINE:-}" ]; then
  (cd "$BASELINE" && sed 's|/tmp/build-bench|/tmp/build-baseline|g' "$here/build-kiln.sh" > /tmp/build-baseline.sh &&
    source /tmp/build-baseline.sh) || exit 1
  baseline_flags=(--baseline-kiln /tmp/build-baseline/tools/kiln/kiln)
fi
# The table on stdout (and in zoo_gpu.txt), one row as each engine is measured; exporter warnings and
# torch.compile's autotuning reports in zoo_gpu.log.
# Inductor's cache is saved every minute while the table is made, so that what max-autotune timed comes back with
# each follow of a detached run (detached.sh), even from a run the machine's end cuts short.
(while sleep 60; do bash "$here/inductor-cache.sh" save > /dev/null; done) &
saver=$!
python3 -u bench/zoo_gpu.py --kiln "$kiln" "${baseline_flags[@]}" "$@" 2> $OUT/zoo_gpu.log | tee $OUT/zoo_gpu.txt
status=${PIPESTATUS[0]}
kill "$saver"
bash "$here/inductor-cache.sh" save
exit "$status"
