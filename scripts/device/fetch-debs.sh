#!/usr/bin/env bash
# Downloads the Debian packages the GPU machine lacks (it has no network) into .debs/, which the `device`
# tool carries there: run this once on the development machine, then call the device tool with
# carry=[".debs"] (see README.md here). .debs/ is kept out of git (.git/info/exclude).
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '/.debs/' .git/info/exclude 2>/dev/null || echo '/.debs/' >> .git/info/exclude
mkdir -p .debs
cp scripts/device/check.sh scripts/device/failures.sh scripts/device/bench.sh scripts/device/bench-plugins.sh scripts/device/bench-zoo.sh \
  scripts/device/bench-against.sh scripts/device/profile-zoo.sh scripts/device/bench-host-path.sh \
  scripts/device/sanitize.sh scripts/device/profile.sh scripts/device/build-kiln.sh scripts/device/kernels-zoo.sh \
  scripts/device/inductor-cache.sh scripts/device/detached.sh scripts/device/ncu-attention.sh \
  scripts/device/zoo-table.sh .debs/
cd .debs
apt-get download nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev googletest \
  libonnx-dev libonnx1 libonnxifi libprotobuf-dev libprotobuf32 libprotobuf-lite32 protobuf-compiler libprotoc32 \
  libonnx-testdata \
  libdnnl-dev libdnnl2 ocl-icd-libopencl1
