#!/usr/bin/env bash
# Remakes a plan harness's committed corpus, tests/fuzz/corpus/<harness>: runs the harness from the seeds, what it
# derives from them at start and the found inputs (regressions) for a while, then keeps what adds coverage beyond
# those (libFuzzer's -merge=1 into a folder that holds them first). The corpus it replaces is merged in with the run's
# inputs, so that what it still covers is kept. Run it from the repository root after make_seeds.sh, with a build whose
# fuzzers are built (build/tests/fuzz/clang/, or build-fuzz/tests/fuzz/ for the fuzzing build):
#   tests/fuzz/remake_corpus.sh plan_reader|plugin_payload [seconds, 600] [build folder, build]
# Crashes found on the way are left in the temporary folder it names; it then replaces nothing.
set -euo pipefail
harness=${1:-}
seconds=${2:-600}
build=${3:-build}
case "$harness" in
  plan_reader)
    fuzzer=plan_fuzzer variable=KILN_FUZZ_PLAN_SEEDS regressions=tests/fuzz/regressions/plan ;;
  plugin_payload)
    fuzzer=plugin_payload_fuzzer variable=KILN_FUZZ_PAYLOAD_SEEDS regressions=tests/fuzz/regressions/payload ;;
  *)
    echo "usage: $0 plan_reader|plugin_payload [seconds] [build folder]" >&2
    exit 2 ;;
esac
path=$build/tests/fuzz/clang/$fuzzer
[ -x "$path" ] || path=$build/tests/fuzz/$fuzzer
corpus=tests/fuzz/corpus/$harness
work=$(mktemp -d)
mkdir "$work/derived" "$work/run" "$work/known"
# The payload harness derives its seeds from the seed plans; the plan harness starts from those plans as well.
known=("$work/derived" "$regressions")
[ "$harness" = plan_reader ] && known+=(tests/fuzz/seeds/plans)
options=(-timeout=10 -rss_limit_mb=2048 -max_len=65536)

env "$variable=$work/derived" nice -n 19 "$path" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
  -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -artifact_prefix="$work/" \
  "$work/run" "${known[@]}" "$corpus" > "$work/run.log" 2>&1
grep '^#' "$work/run.log" | tail -n 1
if compgen -G "$work/crash-*" > /dev/null || compgen -G "$work/leak-*" > /dev/null; then
  echo "$0: the run crashed or leaked; the inputs are in $work (tests/fuzz/README.md says what to do)" >&2
  exit 1
fi

nice -n 19 "$path" "${options[@]}" -merge=1 "$work/known" "${known[@]}" > "$work/merge.log" 2>&1
ls "$work/known" > "$work/known.txt"
nice -n 19 "$path" "${options[@]}" -merge=1 "$work/known" "$work/run" "$corpus" >> "$work/merge.log" 2>&1
rm -rf "$corpus" && mkdir -p "$corpus"
ls "$work/known" | { grep -vxFf "$work/known.txt" || true; } | while read -r input; do cp "$work/known/$input" "$corpus/"; done
echo "$corpus: $(ls "$corpus" | wc -l) inputs, $(cat "$corpus"/* | wc -c) bytes"
rm -rf "$work"
