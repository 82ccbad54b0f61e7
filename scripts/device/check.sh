#!/bin/bash
# On the GPU machine (see README.md): builds a source tree with CUDA and runs its tests.
#   check.sh [REGEX] [SOURCE] [TARGETS]   REGEX: ctest -R filter (all tests if empty); SOURCE: the folder to
#                                         build, "." (the working tree as sent) by default; TARGETS: build only
#                                         these (e.g. "cuda_backend_test"), everything if empty.
cd "$(dirname "$0")/.."
source scripts/device/fresh-copies.sh
source_dir=${2:-.}
build_dir=/tmp/build-$([ "$source_dir" = . ] && echo tree || echo snap)
mkdir -p /tmp/deps
for p in nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev googletest; do
  dpkg -s $p >/dev/null 2>&1 || dpkg -x .debs/${p}_*.deb /tmp/deps
done
# ONNX and the protobuf it was built against, always from Debian's packages, so that versions match.
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 libonnx-testdata libonnxifi protobuf-compiler libprotoc32 \
    libdnnl-dev libdnnl2 ocl-icd-libopencl1; do
  [ -e /tmp/deps/.$p ] || { dpkg -x .debs/${p}_*.deb /tmp/deps && touch /tmp/deps/.$p; }
done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
cd "$source_dir"
cmake -S . -B $build_dir -G Ninja -DKILN_CUDA=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DProtobuf_INCLUDE_DIR=/tmp/deps/usr/include \
  -DProtobuf_LIBRARY=/tmp/deps/usr/lib/x86_64-linux-gnu/libprotobuf.so \
  -DProtobuf_PROTOC_EXECUTABLE=/tmp/deps/usr/bin/protoc \
  -DKILN_ONNX_TESTDATA=/tmp/deps/usr/share/libonnx-testdata/data/node > /tmp/cfg.log 2>&1 || { tail -30 /tmp/cfg.log; exit 1; }
cmake --build $build_dir -j16 ${3:+--target $3} > /tmp/build.log 2>&1 || { grep -E "error|Error" -A3 /tmp/build.log | head -60; exit 1; }
ctest --test-dir $build_dir -j16 --output-on-failure ${1:+-R "$1"} > /tmp/ctest.log 2>&1; rc=$?
grep -E "tests passed|\(Failed\)|\(SEGFAULT\)|\(Subprocess|Timeout|Not Run" /tmp/ctest.log | head -40
grep -B2 -A25 "Failure\|FAILED  \]" /tmp/ctest.log | head -150
tail -3 /tmp/ctest.log
cp /tmp/ctest.log /tmp/build.log $OUT/ 2>/dev/null
exit $rc
