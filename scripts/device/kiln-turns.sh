#!/bin/bash
# On the GPU machine (see README.md): a change's speed against its baseline on one GPU. Builds the kiln command
# (Release) of each source tree .debs/v_NAME.tar.gz, all at once, then times every case on every build in turns, two
# rounds: the first builds each plan (--saveEngine), the second loads it. Prints one line per case and round, the GPU
# compute median in ms of each build, with a CUDA graph and no host copies.
#   kiln-turns.sh CASES   CASES: a file of lines "MODEL SHAPES [kiln flags...]" (MODEL: an ONNX file, or one
#                         gzip-compressed (.gz), its seeded weights drawn again first, bench/seeded_weights.py;
#                         SHAPES as --shapes takes them)
# Trees are made here with
#   git archive COMMIT src include tools plugins cmake CMakeLists.txt python examples triton bench | gzip > .debs/v_NAME.tar.gz
# and the run is run(command="bash .debs/kiln-turns.sh .debs/cases.txt", carry=[".debs", ...the models]); a run that
# faults leaves its backtrace (fault_trace.c) in the output and in $OUT. The carry
# limit (64 MiB with the working tree) may need the packages that a Release kiln does not (googletest's, ONNX's test
# data, oneDNN's) moved out of .debs/ for a large model.
# RUN_PREFIX and RUN_FLAGS change how each kiln runs: RUN_PREFIX="compute-sanitizer --tool memcheck --leak-check no
# --error-exitcode 86" RUN_FLAGS="--iterations=2 --duration=0 --warmUp=0" FAILURE_LINES=40 checks every kernel of the
# plans for bad memory accesses instead of timing them. KEEP_LOGS=1 keeps each run's output in $OUT (with
# RUN_FLAGS="--dumpProfile --separateProfileRun ...", each plan's layer profile).
here=$(cd "$(dirname "$0")" && pwd)
cases=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
RUN_FLAGS=${RUN_FLAGS:---duration=1 --warmUp=200}
cd "$here/.."
export PYTHONUNBUFFERED=1
start=$(date +%s)
mkdir -p /tmp/deps /tmp/turns/models /tmp/turns/plans
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 libonnxifi protobuf-compiler libprotoc32 \
    libdnnl-dev libdnnl2 ocl-icd-libopencl1 nlohmann-json3-dev libcli11-dev; do
  # A package left out of .debs/ is left out of the builds, as in build-kiln.sh (oneDNN, to carry a larger model).
  [ -e /tmp/deps/.$p ] || ! ls .debs/${p}_*.deb > /dev/null 2>&1 ||
    { dpkg -x .debs/${p}_*.deb /tmp/deps && touch /tmp/deps/.$p; }
done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
trees=$(ls .debs/v_*.tar.gz | sed 's|.debs/v_||; s|.tar.gz$||')
for t in $trees; do
  (rm -rf /tmp/turns/src-$t && mkdir -p /tmp/turns/src-$t && tar -xzf .debs/v_$t.tar.gz -C /tmp/turns/src-$t &&
    cmake -S /tmp/turns/src-$t -B /tmp/turns/build-$t -G Ninja -DKILN_CUDA=ON -DCMAKE_BUILD_TYPE=Release \
      -DKILN_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DProtobuf_INCLUDE_DIR=/tmp/deps/usr/include \
      -DProtobuf_LIBRARY=/tmp/deps/usr/lib/x86_64-linux-gnu/libprotobuf.so \
      -DProtobuf_PROTOC_EXECUTABLE=/tmp/deps/usr/bin/protoc > /tmp/turns/cfg-$t.log 2>&1 &&
    cmake --build /tmp/turns/build-$t -j$(( 16 / $(echo $trees | wc -w) + 1 )) --target kiln_cli \
      > /tmp/turns/build-$t.log 2>&1 || { echo "$t: the build failed"; grep -E "error" -A3 /tmp/turns/build-$t.log | head; }) &
done
wait
echo "== built $(echo $trees) after $(( $(date +%s) - start )) s on $(nvidia-smi --query-gpu=name --format=csv,noheader)"
n=0
while read -r model shapes flags; do
  [ -n "$model" ] && [ "${model:0:1}" != "#" ] || continue
  n=$((n + 1))
  if [[ $model == *.gz ]]; then  # gpu_int8_make.py's larger models travel gzip-compressed
    gunzip -c "$model" > /tmp/turns/models/$n.unpacked.onnx && model=/tmp/turns/models/$n.unpacked.onnx || exit 1
  fi
  python3 bench/seeded_weights.py restore "$model" /tmp/turns/models/$n.onnx > /dev/null || exit 1
done < "$cases"
median() { grep -oE "GPU Compute Time: .*median = [0-9.]+" | grep -oE "[0-9.]+$"; }
# A kiln run that faults leaves a trace (fault_trace.c, preloaded into every run): printed with the run's error lines,
# its frames named by addr2line, and kept in $OUT.
gcc -shared -fPIC -O1 -o /tmp/turns/fault_trace.so scripts/device/fault_trace.c || exit 1
symbolize() {
  sed -nE 's/^([^( ]+)\(\+(0x[0-9a-f]+)\).*/\1 \2/p' "$1" | while read -r file offset; do
    echo "  $(addr2line -f -C -e "$file" "$offset" 2> /dev/null | head -1) ($(basename "$file")+$offset)"
  done
}
for round in 1 2; do
  n=0
  while read -r model shapes flags; do
    [ -n "$model" ] && [ "${model:0:1}" != "#" ] || continue
    n=$((n + 1))
    line="round $round: $(basename "$model") $shapes $flags:"
    for t in $trees; do
      plan=/tmp/turns/plans/$t-$n.plan
      if [ $round = 1 ]; then source="--onnx=/tmp/turns/models/$n.onnx $flags --saveEngine=$plan"; else source="--loadEngine=$plan"; fi
      rm -f /tmp/turns/fault.txt
      KILN_FAULT_TRACE=/tmp/turns/fault.txt LD_PRELOAD=/tmp/turns/fault_trace.so $RUN_PREFIX \
        /tmp/turns/build-$t/tools/kiln/kiln $source --shapes=$shapes --backend=cuda --useCudaGraph --noDataTransfers \
        $RUN_FLAGS > /tmp/turns/run.log 2>&1
      status=$?
      ms=$(median < /tmp/turns/run.log)
      [ -z "${KEEP_LOGS:-}" ] || cp /tmp/turns/run.log "$OUT/log-$t-case$n-round$round.txt"
      if [ -z "$ms" ] || [ $status -ne 0 ]; then
        echo "$t failed on case $n (round $round), exit status $status:"
        grep -iE "error|fail|^=========" /tmp/turns/run.log | head -${FAILURE_LINES:-5}
      fi
      if [ -f /tmp/turns/fault.txt ]; then
        head -1 /tmp/turns/fault.txt && symbolize /tmp/turns/fault.txt | head -40
        cp /tmp/turns/fault.txt "$OUT/fault-$t-case$n-round$round.txt"
      fi
      line="$line $t ${ms:-failed}"
    done
    echo "$line"
  done < "$cases"
  echo "== round $round after $(( $(date +%s) - start )) s"
done
