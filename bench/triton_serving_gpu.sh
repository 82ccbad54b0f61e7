#!/bin/bash
# On the GPU machine: bench/triton_serving.py on KIND_GPU instances, Kiln behind a real tritonserver beside Kiln
# alone. Set up as for scripts/device/triton-gpu.sh (scripts/device/README.md): the server unpacked into /tmp/tv-site
# by an earlier call on the same machine, and .gpu-triton/.debs and .gpu-triton/wheels carried. Builds the kiln
# command and the backend in Release (about 75 s), then passes its arguments to triton_serving.py, for example
# `--export resnet50 --precision FP16`; the table also goes to $OUT/triton_serving.txt. The model and the plan the
# backend built stay in /tmp/serving-work/<model>, so a second run on the same warm machine skips the build.
set -u
export PYTHONUNBUFFERED=1
ln -sfn .gpu-triton/.debs .debs
site=/tmp/tv-site
[ -x $site/pytriton/tritonserver/bin/tritonserver ] || { echo "no server in $site: unpack server.tar.xz first" >&2; exit 1; }
KILN_TARGETS="kiln_cli triton_kiln" source .debs/build-kiln.sh || exit 1
touch $site/pytriton/__init__.py
python3 -m pip install -q --no-deps --no-index --upgrade --target $site .gpu-triton/wheels/*.whl 2>&1 | grep -v WARNING
PYTHONPATH=$site python3 bench/triton_serving.py --kiln /tmp/build-bench/tools/kiln/kiln \
  --backends /tmp/build-bench/backends --kind KIND_GPU --work /tmp/serving-work "$@" 2>&1 | tee "$OUT/triton_serving.txt"
exit "${PIPESTATUS[0]}"
