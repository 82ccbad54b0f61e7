#!/usr/bin/env bash
# Formats Kiln's own C++ and CUDA sources in place with clang-format and the repository's .clang-format.
# scripts/check-format.sh (run by CTest) checks that nothing is left to format.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/format-common.sh

if ! kiln_find_clang_format; then
  echo "format.sh: clang-format not found; install it (./scripts/install-deps.sh) or set CLANG_FORMAT" >&2
  exit 1
fi
if [ "$KILN_CLANG_FORMAT_FOUND_MAJOR" != "$KILN_CLANG_FORMAT_MAJOR" ]; then
  echo "format.sh: WARNING: $KILN_CLANG_FORMAT is version $KILN_CLANG_FORMAT_FOUND_MAJOR;" \
       "the check uses $KILN_CLANG_FORMAT_MAJOR, which may break some lines differently" >&2
fi
kiln_format_files | xargs -d '\n' -P "$(nproc)" -n 50 "$KILN_CLANG_FORMAT" -i --style=file
