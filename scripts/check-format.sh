#!/usr/bin/env bash
# Checks that Kiln's own C++ and CUDA sources are formatted as .clang-format says. Lists the files that are not and
# exits 1; exits 77 (CTest's skip) when clang-format 14, the version the style is checked with, is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/format-common.sh

if ! kiln_find_clang_format; then
  echo "check-format.sh: SKIPPED: clang-format not found (./scripts/install-deps.sh installs it)"
  exit 77
fi
if [ "$KILN_CLANG_FORMAT_FOUND_MAJOR" != "$KILN_CLANG_FORMAT_MAJOR" ]; then
  echo "check-format.sh: SKIPPED: $KILN_CLANG_FORMAT is version $KILN_CLANG_FORMAT_FOUND_MAJOR; the style is" \
       "checked with version $KILN_CLANG_FORMAT_MAJOR (set CLANG_FORMAT to it)"
  exit 77
fi

# A .clang-format that clang-format cannot read would make every file look unformatted: say so instead.
if ! "$KILN_CLANG_FORMAT" --style=file --dump-config >/dev/null; then
  echo "check-format.sh: clang-format cannot read .clang-format" >&2
  exit 2
fi
# --dry-run reports each place a file would change as a warning that starts with the file's name. Batches of 20
# files run on every core; each batch prints the names it found in one write of under 4 KiB (PIPE_BUF), so that
# the parallel batches' lines cannot mix.
mapfile -t unformatted < <(kiln_format_files | xargs -d '\n' -P "$(nproc)" -n 20 sh -c '
  "$0" --style=file --dry-run "$@" 2>&1 \
    | sed -n "s/^\(.*\):[0-9]*:[0-9]*: warning: .*\[-Wclang-format-violations\]\$/\1/p" | sort -u
  ' "$KILN_CLANG_FORMAT" | LC_ALL=C sort)

if [ ${#unformatted[@]} -ne 0 ]; then
  echo "check-format.sh: ${#unformatted[@]} file(s) not formatted as .clang-format says:"
  printf '  %s\n' "${unformatted[@]}"
  echo "Fix them with: ./scripts/format.sh   (or: clang-format -i --style=file FILE...)"
  exit 1
fi
echo "check-format.sh: $(kiln_format_files | wc -l) files formatted as .clang-format says"
