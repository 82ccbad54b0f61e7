#!/bin/bash
# On the development machine: packs what the GPU machine needs to run the Triton backend's tests on KIND_GPU
# instances (triton-gpu.sh) into .gpu-triton/, which git ignores. The server comes from the Python environment that
# scripts/install-deps.sh makes (nvidia-pytriton: the tritonserver binary and the libraries it needs, not the rest of
# the wheel), the client from PyPI as wheels for the GPU machine's Python 3.12, the Debian packages from .debs/
# (fetch-debs.sh) less oneDNN. Each part fits the device tool's 64 MiB carry beside the working tree alone, so the
# server travels in a call of its own: see README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
venv=${KILN_TRITON_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kiln/triton-venv}
site=$(echo "$venv"/lib/python3*/site-packages)
[ -x "$site/pytriton/tritonserver/bin/tritonserver" ] || { echo "no tritonserver in $venv: run scripts/install-deps.sh" >&2; exit 1; }
[ -d .debs ] || { echo "no .debs/: run scripts/device/fetch-debs.sh first" >&2; exit 1; }
rm -rf .gpu-triton && mkdir -p .gpu-triton/server .gpu-triton/wheels .gpu-triton/.debs
# The libraries the server loads: the closure of its NEEDED entries inside the wheel's library folder.
needed=$(python3 - "$site" <<'PY'
import os, re, subprocess, sys
site = sys.argv[1]
todo, seen = [os.path.join(site, "pytriton/tritonserver/bin/tritonserver")], set()
while todo:
    dynamic = subprocess.run(["readelf", "-d", todo.pop()], capture_output=True, text=True).stdout
    for name in re.findall(r"NEEDED.*\[(.*)\]", dynamic):
        path = os.path.join("nvidia_pytriton.libs", name)
        if os.path.exists(os.path.join(site, path)) and path not in seen:
            seen.add(path)
            todo.append(os.path.join(site, path))
print(" ".join(sorted(seen)))
PY
)
# Triton's perf_analyzer, the C++ load generator that speaks CUDA shared memory: tritonclient 2.40's wheel is the last
# to carry its binary. It loads libb64 and CUDA 12's runtime, which the server's libraries hold under other names
# (bench/triton_serving.py links them).
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
pip download -q --no-deps --only-binary=:all: --platform manylinux1_x86_64 -d "$tools" tritonclient==2.40.0
mkdir -p "$tools/perf_analyzer/bin"
unzip -q -p "$tools"/tritonclient-2.40.0-*.whl tritonclient-2.40.0.data/data/bin/perf_analyzer \
  > "$tools/perf_analyzer/bin/perf_analyzer"
chmod +x "$tools/perf_analyzer/bin/perf_analyzer"
tar -C "$site" -cf - pytriton/tritonserver/bin pytriton/tritonserver/caches $needed -C "$tools" perf_analyzer \
  | xz -T2 -6 > .gpu-triton/server/server.tar.xz
platforms="--platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64"
platforms="$platforms --platform manylinux_2_24_x86_64 --platform manylinux1_x86_64"
# tritonclient's own requirements name ml-dtypes, which its HTTP and gRPC clients do not import: listed one by one.
pip download -q --only-binary=:all: --no-deps --python-version 3.12 $platforms -d .gpu-triton/wheels \
  tritonclient==2.73.0 "protobuf==6.33.5" grpcio geventhttpclient gevent greenlet zope.interface zope.event brotli \
  certifi urllib3 python-rapidjson typing_extensions
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 libonnxifi protobuf-compiler libprotoc32 \
    nlohmann-json3-dev libcli11-dev; do
  ln -f .debs/${p}_*.deb .gpu-triton/.debs/
done
cp scripts/device/build-kiln.sh scripts/device/fresh-copies.sh scripts/device/triton-gpu.sh .gpu-triton/.debs/
du -sh .gpu-triton/server .gpu-triton/wheels .gpu-triton/.debs
