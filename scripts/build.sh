#!/usr/bin/env bash
# Configures and builds Kiln into ./build (CUDA backend when nvcc, cuDNN and cuBLAS are found), with warnings in
# Kiln's own code as errors (KILN_WERROR; set KILN_WERROR=OFF in the environment to build past a new compiler's).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_CUDA="${KILN_CUDA:-AUTO}" \
  -DKILN_WERROR="${KILN_WERROR:-ON}" >/dev/null
cmake --build build -j "$(nproc)"
