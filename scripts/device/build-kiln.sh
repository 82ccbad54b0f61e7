#!/bin/bash
# On the GPU machine, sourced by bench.sh and profile.sh from the repository root: builds the kiln command with
# CUDA in Release (no tests) into /tmp/build-bench, against the Debian packages in .debs/. KILN_TARGETS names other
# targets to build (kernels-zoo.sh's kiln_python).
[ ! -f scripts/device/fresh-copies.sh ] || source scripts/device/fresh-copies.sh
mkdir -p /tmp/deps
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 libonnxifi protobuf-compiler libprotoc32 \
    libdnnl-dev libdnnl2 ocl-icd-libopencl1 nlohmann-json3-dev libcli11-dev; do
  # A package left out of .debs/ is left out of the build (triton-gpu.sh's set has no oneDNN).
  [ -e /tmp/deps/.$p ] || ! ls .debs/${p}_*.deb > /dev/null 2>&1 || { dpkg -x .debs/${p}_*.deb /tmp/deps && touch /tmp/deps/.$p; }
done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
cmake -S . -B /tmp/build-bench -G Ninja -DKILN_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DProtobuf_INCLUDE_DIR=/tmp/deps/usr/include \
  -DProtobuf_LIBRARY=/tmp/deps/usr/lib/x86_64-linux-gnu/libprotobuf.so \
  -DProtobuf_PROTOC_EXECUTABLE=/tmp/deps/usr/bin/protoc > /tmp/cfg.log 2>&1 || { tail -30 /tmp/cfg.log; exit 1; }
cmake --build /tmp/build-bench -j16 --target ${KILN_TARGETS:-kiln_cli} > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -40; exit 1; }
kiln=/tmp/build-bench/tools/kiln/kiln
