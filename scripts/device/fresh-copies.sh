#!/bin/bash
# On the GPU machine, sourced from the repository root by check.sh and build-kiln.sh (so by every script that builds):
# the scripts run as copies in .debs/ (fetch-debs.sh makes them), and a copy older than its source in
# scripts/device/ would run the old script without a word (an old bench-zoo.sh, for one, runs a whole zoo without
# saving Inductor's cache). So stop, naming the stale copies.
stale=()
for copy in .debs/*.sh; do
  [ -f "$copy" ] || continue
  original=scripts/device/$(basename "$copy")
  [ -f "$original" ] && ! cmp -s "$copy" "$original" && stale+=("$copy")
done
if [ ${#stale[@]} -gt 0 ]; then
  echo "fresh-copies.sh: ${stale[*]} differ from scripts/device/; here, run: cp scripts/device/*.sh .debs/" >&2
  exit 1
fi
