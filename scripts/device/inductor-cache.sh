#!/bin/bash
# On the GPU machine: keeps torch.compile's Inductor cache (above all its max-autotune timings) from one machine to
# the next. FP32 max-autotune of the zoo takes longer than a machine is held (30 minutes); with the cache carried,
# a later machine takes up the autotuning where the last one stopped, and makes the same choices without timing them
# again. bench-zoo.sh points TORCHINDUCTOR_CACHE_DIR at the cache and restores it.
#   inductor-cache.sh restore   unpacks .debs/inductor-cache.tar.gz (if carried) into the cache folder, once per machine
#   inductor-cache.sh save      packs the cache folder into $OUT/inductor-cache.tar.gz; here, move that file to
#                               .debs/ so that the next call carries it
set -u
cache=${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-cache}
archive=.debs/inductor-cache.tar.gz
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
    tar -czf "$OUT/inductor-cache.tar.gz" -C "$cache" cache -T /tmp/inductor-cache-configs
    echo "inductor-cache: saved $(stat -c %s "$OUT/inductor-cache.tar.gz") bytes, $(wc -l < /tmp/inductor-cache-configs) configurations"
    ;;
  *)
    echo "usage: inductor-cache.sh restore | save"
    exit 2
    ;;
esac
