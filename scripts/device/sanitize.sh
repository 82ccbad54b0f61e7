#!/bin/bash
# On the GPU machine (see README.md): builds the CUDA backend's tests as check.sh does, then runs them under
# compute-sanitizer, in parallel shards of the one test binary.
#   sanitize.sh [TOOL] [FILTER] [SHARDS]   TOOL: memcheck (default), racecheck, synccheck or initcheck;
#                                          FILTER: a --gtest_filter (default: every test); SHARDS: default 8.
# memcheck also reports failed CUDA API calls. The test in provokes_api_errors makes calls fail on purpose (a
# plugin that synchronizes inside a graph capture), so where the filter selects it, it runs in one more shard that
# leaves API errors out and still reports every memory error.
tool=${1:-memcheck}
filter=${2:-*}
shards=${3:-8}
here=$(dirname "$0")
bash "$here/check.sh" '^CudaBackendFusion' . cuda_backend_test > /tmp/sanitize-build.log 2>&1 ||
  { tail -30 /tmp/sanitize-build.log; exit 1; }
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
binary=/tmp/build-tree/tests/cuda_backend/cuda_backend_test
options=(--tool "$tool" --error-exitcode 86)
[ "$tool" = memcheck ] && options+=(--leak-check no)
provokes_api_errors=CudaDeviceMemory.APluginThatBreaksAGraphCaptureIsNamed
# gtest's filter is POSITIVE[-NEGATIVE], its patterns separated by ':'.
[[ "$filter" == *-* ]] && without="$filter:$provokes_api_errors" || without="$filter-$provokes_api_errors"
pids=()
for ((shard = 0; shard < shards; ++shard)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard compute-sanitizer "${options[@]}" "$binary" \
    --gtest_filter="$without" > /tmp/sanitize-$shard.log 2>&1 &
  pids+=($!)
done
last=$((shards - 1))
if "$binary" --gtest_list_tests --gtest_filter="$filter" | grep -q "^  ${provokes_api_errors#*.}$"; then
  last=$shards
  compute-sanitizer "${options[@]}" --report-api-errors no "$binary" --gtest_filter="$provokes_api_errors" \
    > /tmp/sanitize-$shards.log 2>&1 &
  pids+=($!)
fi
status=0
for ((shard = 0; shard <= last; ++shard)); do
  wait "${pids[$shard]}"; rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" /tmp/sanitize-$shard.log | tr '\n' ' ')
  echo "shard $shard: exit $rc: $summary"
  if [ $rc -ne 0 ]; then
    status=1
    grep -E "=========|FAILED|Failure" /tmp/sanitize-$shard.log | head -40
  fi
  cp /tmp/sanitize-$shard.log "${OUT:-/tmp}/" 2>/dev/null
done
exit $status
