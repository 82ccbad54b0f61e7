#!/bin/bash
# On the GPU machine: Kiln's Triton backend on KIND_GPU instances (the CUDA backend) in a real tritonserver 2.51,
# the tests of tests/triton with KILN_TRITON_INSTANCE_KIND=KIND_GPU. fetch-triton.sh packs what it needs; the server
# must have been unpacked into /tmp/tv-site by an earlier call on the same machine (README.md). Arguments: the test
# classes to run (default: all three).
set -u
export PYTHONUNBUFFERED=1
ln -sfn .gpu-triton/.debs .debs
site=/tmp/tv-site
[ -x $site/pytriton/tritonserver/bin/tritonserver ] || { echo "no server in $site: unpack server.tar.xz first" >&2; exit 1; }
KILN_TARGETS="kiln_cli triton_kiln kiln_seed_plugins" source .debs/build-kiln.sh || exit 1
touch $site/pytriton/__init__.py
python3 -m pip install -q --no-deps --no-index --upgrade --target $site .gpu-triton/wheels/*.whl 2>&1 | grep -v WARNING
# run_triton_tests.py runs the tests with $KILN_TRITON_VENV/bin/python: here, the machine's Python with the client.
mkdir -p /tmp/tv/bin
printf '#!/bin/sh\nPYTHONPATH=%s exec python3 "$@"\n' $site > /tmp/tv/bin/python && chmod +x /tmp/tv/bin/python
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export KILN_TRITON_VENV=/tmp/tv KILN_TRITON_INSTANCE_KIND=KIND_GPU
status=0
for test_class in ${@:-ServingTest ModelControlTest BackendConfigTest}; do
  python3 tests/triton/run_triton_tests.py "$test_class" --backends /tmp/build-bench/backends \
    --kiln /tmp/build-bench/tools/kiln/kiln --seed-plugins "$(find /tmp/build-bench -name libkiln_seed_plugins.so | head -1)" \
    --source . > "$OUT/triton-$test_class.log" 2>&1
  result=$?
  grep -E "^(FAIL|ERROR):|^Ran |^OK|^FAILED" "$OUT/triton-$test_class.log"
  echo "== $test_class: exit $result"
  [ $result -eq 0 ] || status=1
done
exit $status
