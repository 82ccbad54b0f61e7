#!/bin/bash
# On the GPU machine (see README.md): NVIDIA's own trtexec on Kiln's two backends. Builds Kiln with CUDA (no tests,
# no benchmarks), installs it into /tmp/kiln-prefix, builds trtexec from the TensorRT 10.16 sources carried in
# .debs/TensorRT with scripts/nvidia-trtexec.sh, and runs a model:
#   1. the CUDA backend, as trtexec runs TensorRT (build, time, save the plan);
#   2. the CPU backend: KILN_BACKEND=cpu KILN_CPU_TENSOR_LOCATION=device with --useManagedMemory (build, time, save),
#      then the saved CPU plan loaded again (--loadEngine) and timed;
#   3. the CPU plan without --useManagedMemory, which Kiln must refuse (device memory) with its error, not crash.
# Each run's log goes to $OUT (trtexec-cuda.log, trtexec-cpu.log, trtexec-cpu-load.log, trtexec-cpu-device.log).
#
#   trtexec-gpu.sh [MODEL]   MODEL: an ONNX file of the tree (tests/models/mobilenet_v3/model.onnx by default)
#
# TensorRT's sources are never committed: on the development machine, from a checkout of github.com/NVIDIA/TensorRT,
#   mkdir -p .debs/TensorRT && git -C CHECKOUT archive v10.16 samples/common samples/trtexec shared/utils \
#     | tar -x -C .debs/TensorRT
cd "$(dirname "$0")/.."
source scripts/device/fresh-copies.sh
model=${1:-tests/models/mobilenet_v3/model.onnx}
out=${OUT:-/tmp/trtexec-out}
mkdir -p "$out" /tmp/deps
[ -f .debs/TensorRT/samples/trtexec/trtexec.cpp ] || { echo "trtexec-gpu.sh: no .debs/TensorRT (see the header)"; exit 2; }
for p in nlohmann-json3-dev libcli11-dev; do
  dpkg -s $p >/dev/null 2>&1 || dpkg -x .debs/${p}_*.deb /tmp/deps
done
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 protobuf-compiler libprotoc32 \
    libdnnl-dev libdnnl2 ocl-icd-libopencl1; do
  [ -e /tmp/deps/.$p ] || { dpkg -x .debs/${p}_*.deb /tmp/deps && touch /tmp/deps/.$p; }
done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
cmake -S . -B /tmp/build-trtexec -G Ninja -DKILN_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=OFF \
  -DKILN_BUILD_BENCHMARKS=OFF -DKILN_PYTHON=OFF -DCMAKE_PREFIX_PATH=/tmp/deps/usr \
  -DProtobuf_INCLUDE_DIR=/tmp/deps/usr/include -DProtobuf_LIBRARY=/tmp/deps/usr/lib/x86_64-linux-gnu/libprotobuf.so \
  -DProtobuf_PROTOC_EXECUTABLE=/tmp/deps/usr/bin/protoc > /tmp/cfg.log 2>&1 || { tail -30 /tmp/cfg.log; exit 1; }
cmake --build /tmp/build-trtexec -j16 > /tmp/build.log 2>&1 || { grep -E "error|Error" -A3 /tmp/build.log | head -60; exit 1; }
cmake --install /tmp/build-trtexec --prefix /tmp/kiln-prefix > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 1; }
scripts/nvidia-trtexec.sh .debs/TensorRT /tmp/kiln-prefix > /tmp/trtexec-build.log 2>&1 \
  || { grep -E "error" -A3 /tmp/trtexec-build.log | head -40; exit 1; }
trtexec=${TRTEXEC_BUILD:-/tmp/kiln-trtexec}/trtexec

# One trtexec run: its log to $out/NAME.log, its summary and exit status here.
run() {
  local name=$1
  shift
  "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc"
  grep -E "Throughput|Latency: min|GPU Compute Time: min|PASSED|FAILED|\[E\]|Error" "$out/$name.log" | head -8
}
run trtexec-cuda "$trtexec" --onnx="$model" --saveEngine=/tmp/model.cuda.plan --duration=3
run trtexec-cpu env KILN_BACKEND=cpu KILN_CPU_TENSOR_LOCATION=device \
  "$trtexec" --onnx="$model" --useManagedMemory --saveEngine=/tmp/model.cpu.plan --duration=3
run trtexec-cpu-load env KILN_CPU_TENSOR_LOCATION=device \
  "$trtexec" --loadEngine=/tmp/model.cpu.plan --useManagedMemory --duration=3
run trtexec-cpu-device env KILN_CPU_TENSOR_LOCATION=device "$trtexec" --loadEngine=/tmp/model.cpu.plan --duration=1
grep -m1 -o 'cannot be used: it is device memory[^"]*' "$out/trtexec-cpu-device.log" \
  || echo "trtexec-cpu-device: Kiln's refusal of device memory not found in the log"
