#!/bin/bash
# On the GPU machine (see README.md): Kiln's kernels beside PyTorch's, kernel by kernel, on zoo models at their real
# sizes (bench/zoo_kernels.py, through Kiln's Python API and torch.profiler). Builds kiln and its Python extension in
# Release as bench.sh does; arguments go to zoo_kernels.py, e.g. --only bert,vit --precisions fp16 --compile bert.
# The reports of several calls in one command add up in $OUT. Run it from the repository root (from scripts/device/ or as copied into .debs/).
here=$(cd "$(dirname "$0")" && pwd)
KILN_TARGETS="kiln_cli kiln_python" source "$here/build-kiln.sh"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export PYTHONPATH=/tmp/build-bench/python/package${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
python3 -u bench/zoo_kernels.py "$@" 2>> $OUT/zoo_kernels.log | tee -a $OUT/zoo_kernels.txt
