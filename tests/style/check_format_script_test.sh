#!/usr/bin/env bash
# Runs scripts/check-format.sh and scripts/format.sh on a scratch copy (not a git checkout) holding one file in the
# house style and one that is not: the check must fail and name only the second, format.sh must fix it, and the
# check must then pass. Exits 77 (skipped) where check-format.sh skips for want of clang-format 14.
set -euo pipefail
source_root="$1"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/scripts/lib" "$scratch/src"
cp "$source_root/.clang-format" "$scratch/"
cp "$source_root/scripts/format.sh" "$source_root/scripts/check-format.sh" "$scratch/scripts/"
cp "$source_root/scripts/lib/format-common.sh" "$scratch/scripts/lib/"

cat > "$scratch/src/styled.cpp" <<'CPP'
namespace kiln
{

int twice(int const* value)
{
    if (value == nullptr)
    {
        return 0;
    }
    return *value * 2;
}

} // namespace kiln
CPP
# K&R braces, two-space indentation and a right-aligned pointer: three departures from the house style.
cat > "$scratch/src/unstyled.cpp" <<'CPP'
namespace kiln {
int twice(int const *value) {
  return *value * 2;
}
}
CPP
cp "$scratch/src/unstyled.cpp" "$scratch/src/unstyled.cu"

fail() { echo "check_format_script_test: FAILED: $*" >&2; exit 1; }

status=0
output="$(cd "$scratch" && GIT_DIR=/nonexistent ./scripts/check-format.sh)" || status=$?
echo "$output"
[ "$status" -eq 77 ] && exit 77
[ "$status" -eq 1 ] || fail "check-format.sh exited $status on a misformatted tree, expected 1"
grep -qx '  src/unstyled.cpp' <<<"$output" || fail "check-format.sh did not name src/unstyled.cpp"
grep -qx '  src/unstyled.cu' <<<"$output" || fail "check-format.sh did not name src/unstyled.cu"
! grep -q 'styled.cpp$' <<<"$(grep -v unstyled <<<"$output")" || fail "check-format.sh named the styled file"
grep -q 'scripts/format.sh' <<<"$output" || fail "check-format.sh did not say how to fix the files"

(cd "$scratch" && GIT_DIR=/nonexistent ./scripts/format.sh) || fail "format.sh failed"
grep -q '^int twice(int const\* value)$' "$scratch/src/unstyled.cpp" \
  || fail "format.sh left: $(cat "$scratch/src/unstyled.cpp")"
output="$(cd "$scratch" && GIT_DIR=/nonexistent ./scripts/check-format.sh)" \
  || fail "check-format.sh still fails after format.sh: $output"
echo "$output"
grep -q '3 files formatted' <<<"$output" || fail "check-format.sh did not count the scratch tree's 3 files"
echo "check_format_script_test: passed"
