#!/bin/bash
# On the GPU machine (see README.md): builds kiln as bench.sh does and prints, for zoo models at their real sizes,
# where Kiln's GPU time goes (bench/zoo_profile.py: per-layer times summed by layer type and kernel); the raw
# profiles go to $OUT. Arguments go to zoo_profile.py, e.g. --only vit,bert --precisions fp16. Run it from the
# repository root (from scripts/device/ or as copied into .debs/); KILN=path skips the build.
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$KILN" ] || { source "$here/build-kiln.sh"; KILN=$kiln; }
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
python3 -u bench/zoo_profile.py --kiln "$KILN" "$@" 2> $OUT/zoo_profile.log
