# Sourced by scripts/format.sh and scripts/check-format.sh: which clang-format to use and which files it formats.

# The clang-format version .clang-format is tuned for and CI installs (Debian 12's clang-format package). Other
# versions break some lines differently, so the check only trusts this one.
KILN_CLANG_FORMAT_MAJOR=14

# Sets KILN_CLANG_FORMAT to the clang-format to run ($CLANG_FORMAT if set, else clang-format-14, else clang-format)
# and KILN_CLANG_FORMAT_FOUND_MAJOR to its major version; returns 1 if there is none.
kiln_find_clang_format() {
  KILN_CLANG_FORMAT="${CLANG_FORMAT:-}"
  if [ -z "$KILN_CLANG_FORMAT" ]; then
    KILN_CLANG_FORMAT="$(command -v "clang-format-$KILN_CLANG_FORMAT_MAJOR" || command -v clang-format || true)"
  fi
  [ -n "$KILN_CLANG_FORMAT" ] && command -v "$KILN_CLANG_FORMAT" >/dev/null || return 1
  KILN_CLANG_FORMAT_FOUND_MAJOR="$("$KILN_CLANG_FORMAT" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')"
}

# Prints Kiln's own C++ and CUDA sources (what .clang-format applies to), one per line, relative to the repository
# root, which must be the current directory. A git checkout lists its tracked files, so scratch files and anything
# ignored stay out; an unpacked source archive lists what is there.
kiln_format_files() {
  local folders=(include src plugins tools tests bench examples python/src triton)
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- "${folders[@]}"
  else
    local folder
    for folder in "${folders[@]}"; do
      if [ -d "$folder" ]; then find "$folder" -type f; fi
    done
  fi | grep -E '\.(h|cpp|cu|cuh)$' | LC_ALL=C sort
}
