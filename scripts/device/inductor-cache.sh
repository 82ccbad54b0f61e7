#!/bin/bash
# On the GPU machine: keeps torch.compile's Inductor cache (above all its max-autotune timings) from one machine to
# the next. FP32 max-autotune of the zoo takes longer than a machine is held (30 minutes); with the cache carried,
# a later machine takes up the autotuning where the last one stopped, and makes the same choices without timing them
# again. bench-zoo.sh points TORCHINDUCTOR_CACHE_DIR at the cache, restores it, and saves it while it runs.
#   inductor-cache.sh restore   unpacks .debs/inductor-cache.tar.gz, else the committed bench/inductor-cache.tar.gz
#                               (the zoo's five compiled models, FP32 and FP16, timed on an H100 with PyTorch 2.11),
#                               into the cache folder, once per machine
#   inductor-cache.sh save      packs the cache folder into $OUT/inductor-cache.tar.gz; here, move that file to
#                               .debs/ so that the next call carries it, and to bench/ (committed) so that a fresh
#                               checkout has it
set -u
cache=${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-cache}
archive=.debs/inductor-cache.tar.gz
[ -f "$archive" ] || archive=bench/inductor-cache.tar.gz
case "${1:-}" in
  restore)
    mkdir -p "$cache"
    if [ -e "$cache/.restored" ]; then
      :
    elif [ -f "$archive" ]; then
      tar -xzf "$archive" -C "$cache" && touch "$cache/.restored" && echo "inductor-cache: restored $(du -sh "$cache" | cut -f1)"
    else
      touch "$cache/.restored"
    fi
    ;;
  save)
    # Only the timings and the chosen configurations: max-autotune's timings per choice (cache/) and the coordinate
    # descent's best configurations (*.best_config). The compiled kernels (hundreds of MB) are compiled again.
    (cd "$cache" && find . -path ./cache -prune -o -name '*.best_config' -print > /tmp/inductor-cache-configs)
    [ -d "$cache/cache" ] && echo cache >> /tmp/inductor-cache-configs
    # Written aside and then renamed: a follow of a detached run may copy $OUT while this runs.
    tar -czf "$OUT/.inductor-cache.tar.gz" -C "$cache" -T /tmp/inductor-cache-configs &&
      mv "$OUT/.inductor-cache.tar.gz" "$OUT/inductor-cache.tar.gz"
    echo "inductor-cache: saved $(stat -c %s "$OUT/inductor-cache.tar.gz") bytes, $(grep -c best_config /tmp/inductor-cache-configs) configurations"
    ;;
  *)
    echo "usage: inductor-cache.sh restore | save"
    exit 2
    ;;
esac
