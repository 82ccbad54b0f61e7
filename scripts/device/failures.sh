#!/bin/bash
# On the GPU machine (see README.md): check.sh, then a short account of what failed, because a full run's CTest log
# (tens of MB where a test prints large tensors) is more than a command may bring back.
#   failures.sh [TIMEOUT] [REGEX] [TARGETS]   TIMEOUT: seconds for check.sh (default 540); REGEX and TARGETS as
#                                             check.sh takes them (empty: every test, every target).
# $OUT/failed.txt lists the tests that failed, crashed, timed out or did not run; $OUT/fail-detail.txt has the first
# 60 lines of each one's output. The CTest log comes back too where it is under 8 MB. Run it from .debs/, as
# fetch-debs.sh copies it there: run(command="bash .debs/failures.sh", carry=[".debs"]).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
start=$(date +%s)
timeout "${1:-540}" bash "$here/check.sh" "${2:-}" . "${3:-}" > /tmp/check.out 2>&1
echo "== check.sh exit status $? after $(( $(date +%s) - start )) s"
grep -E "error|Error" /tmp/check.out | head -20
grep -E "tests passed|Total Test time" /tmp/ctest.log
grep -E "\*\*\*Failed|\*\*\*Exception|\*\*\*Timeout|Not Run" /tmp/ctest.log > "$OUT/failed.txt"
echo "== $(wc -l < "$OUT/failed.txt") tests failed or did not run"
head -60 "$OUT/failed.txt"
python3 - "$OUT/fail-detail.txt" <<'PY'
import re
import sys

# A test's output follows its result line ("N/M Test #K: name ... ***Failed") up to the next test's line.
result_line = re.compile(r"\s*\d+/\d+ Test\s+#\d+:")
start_line = re.compile(r"\s*Start\s+\d+:")
out, keep, taken = [], False, 0
for line in open("/tmp/ctest.log", errors="replace").read().splitlines():
    if result_line.match(line) or start_line.match(line):
        keep = "***" in line or "Not Run" in line
        taken = 0
        if keep:
            out.append("#### " + line)
        continue
    if keep and taken < 60:
        out.append(line[:300])
        taken += 1
open(sys.argv[1], "w").write("\n".join(out)[:3_000_000])
PY
head -c 6000 "$OUT/fail-detail.txt"
# check.sh leaves its logs in $OUT; a CTest log over 8 MB would not come back, the account above does instead.
[ "$(stat -c %s "$OUT/ctest.log" 2>/dev/null || echo 0)" -lt 8000000 ] || rm -f "$OUT/ctest.log"
exit 0
