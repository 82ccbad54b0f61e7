#!/bin/bash
# On the GPU machine (see README.md): runs a command longer than one call may last (the device tool stops a call
# after 10 minutes), detached from the call, and follows it from later calls while the machine stays held.
#   detached.sh start COMMAND...   copies the working tree to /tmp/detached/src (later calls may change the tree the
#                                  tool sends), starts COMMAND there under setsid, apart from the call, with OUT set to
#                                  /tmp/detached/out, then follows it as `follow` does (DETACHED_FOLLOW_SECONDS, default
#                                  540, leaves time for steps before it in the same call)
#   detached.sh follow [SECONDS]   waits until the command ends or SECONDS pass (default 540), prints the end of its
#                                  output and copies what it wrote under its OUT to this call's $OUT
# Its output (stdout and stderr) is /tmp/detached/log; /tmp/detached/status holds its exit status once it ended.
set -u
root=/tmp/detached

follow() {
  local seconds=${1:-540} waited=0
  while [ ! -e "$root/status" ] && [ "$waited" -lt "$seconds" ]; do
    sleep 5
    waited=$((waited + 5))
  done
  tail -c 10000 "$root/log"
  if [ -e "$root/status" ]; then
    echo "== detached.sh: the command ended with exit status $(cat "$root/status")"
  else
    echo "== detached.sh: still running after $waited s of this call"
  fi
  cp -r "$root/out/." "$OUT/" 2>/dev/null
  cp "$root/log" "$OUT/detached.log"
}

case "${1:-}" in
  start)
    shift
    [ $# -gt 0 ] || { echo "detached.sh start: no command given"; exit 2; }
    [ ! -d "$root" ] || [ -e "$root/status" ] || { echo "detached.sh start: a command is still running"; exit 2; }
    rm -rf "$root" && mkdir -p "$root/out" && cp -a . "$root/src"
    (cd "$root/src" && OUT="$root/out" setsid bash -c '"$@"; echo $? > '"$root/status" detached "$@" \
      > "$root/log" 2>&1 < /dev/null &)
    follow "${DETACHED_FOLLOW_SECONDS:-540}"
    ;;
  follow)
    [ -d "$root" ] || { echo "detached.sh follow: nothing was started on this machine (a fresh one?)"; exit 2; }
    follow "${2:-540}"
    ;;
  *)
    echo "usage: detached.sh start COMMAND... | detached.sh follow [SECONDS]"
    exit 2
    ;;
esac
