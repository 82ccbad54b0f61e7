#!/bin/bash
# On the GPU machine (see README.md): the plugin collection for the working tree beside a baseline source tree, in
# one run on one GPU: both built as build-kiln.sh builds kiln (Release; the working tree with its tests too), the
# working tree's CUDA tests that match TESTS, then bench/plugins_gpu.py for each tree in turn (the working tree with
# --kernel-times, so its rows also give the kernels' own time), in FP32 and FP16.
#   bench-plugins-against.sh BASELINE TESTS [plugins_gpu.py flags]
#     BASELINE: a source tree carried beside the working tree (`git archive <commit> | tar -x -C .debs/base`), or ''
#               for the working tree alone; TESTS: a ctest -R regex, or '' for none.
#   STEPS (default "build test fp32 fp16") picks steps, so that a second call on a machine still warm can run the
#   rest: the builds stay in /tmp/build-plugins and /tmp/build-baseline. Tables go to $OUT/plugins_against.txt.
here=$(cd "$(dirname "$0")" && pwd)
baseline=""
[ -n "$1" ] && { baseline=$(cd "$1" && pwd) || { echo "bench-plugins-against.sh: no baseline at $1"; exit 1; }; }
tests=$2
shift 2
steps=${STEPS:-build test fp32 fp16}
cd "$here/.."
repo=$(pwd)
mkdir -p /tmp/deps
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 libonnxifi protobuf-compiler libprotoc32 \
    libdnnl-dev libdnnl2 ocl-icd-libopencl1 nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev googletest; do
  [ -e /tmp/deps/.$p ] || { dpkg -x "$repo"/.debs/${p}_*.deb /tmp/deps && touch /tmp/deps/.$p; }
done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
# build SOURCE BUILD_DIR TESTS_ON TARGETS...
build() {
  local source=$1 dir=$2 with_tests=$3
  shift 3
  cmake -S "$source" -B "$dir" -G Ninja -DKILN_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=$with_tests \
    -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DProtobuf_INCLUDE_DIR=/tmp/deps/usr/include \
    -DProtobuf_LIBRARY=/tmp/deps/usr/lib/x86_64-linux-gnu/libprotobuf.so \
    -DProtobuf_PROTOC_EXECUTABLE=/tmp/deps/usr/bin/protoc > "$dir.cfg.log" 2>&1 || { tail -30 "$dir.cfg.log"; return 1; }
  cmake --build "$dir" -j16 --target "$@" > "$dir.log" 2>&1 || { grep -E "error" -A3 "$dir.log" | head -40; return 1; }
}
if [[ " $steps " == *" build "* ]]; then
  start=$SECONDS
  targets=(kiln_cli)
  [ -n "$tests" ] && targets+=(plugin_collection_test cuda_backend_test)
  build "$repo" /tmp/build-plugins $([ -n "$tests" ] && echo ON || echo OFF) "${targets[@]}" & current_pid=$!
  [ -n "$baseline" ] && { build "$baseline" /tmp/build-baseline OFF kiln_cli & baseline_pid=$!; }
  wait $current_pid || { echo "the working tree failed to build"; exit 1; }
  [ -n "$baseline" ] && { wait $baseline_pid || { echo "the baseline failed to build"; exit 1; }; }
  echo "built in $((SECONDS - start)) s"
fi
if [[ " $steps " == *" test "* ]] && [ -n "$tests" ]; then
  ctest --test-dir /tmp/build-plugins -j16 --output-on-failure -R "$tests" > /tmp/ctest.log 2>&1
  grep -E "tests passed|\(Failed\)|\(SEGFAULT\)|\(Subprocess|Timeout|Not Run" /tmp/ctest.log | head -40
  grep -B2 -A25 "Failure\|FAILED  \]" /tmp/ctest.log | head -120
  cp /tmp/ctest.log $OUT/ 2>/dev/null
fi
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
for precision in fp32 fp16; do
  [[ " $steps " == *" $precision "* ]] || continue
  flag=$([ $precision = fp16 ] && echo --fp16)
  for tree in baseline current; do
    [ $tree = baseline ] && [ -z "$baseline" ] && continue
    binary=$([ $tree = baseline ] && echo /tmp/build-baseline/tools/kiln/kiln || echo /tmp/build-plugins/tools/kiln/kiln)
    extra=$([ $tree = current ] && echo --kernel-times)
    echo "== $tree $precision"
    python3 -u bench/plugins_gpu.py --kiln "$binary" $flag $extra "$@" 2>> $OUT/plugins_against.log |
      tee -a $OUT/plugins_against.txt
  done
done
