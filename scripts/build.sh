#!/usr/bin/env bash
# Configures and builds Kiln into ./build (CUDA backend when nvcc, cuDNN and cuBLAS are found).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_CUDA="${KILN_CUDA:-AUTO}" >/dev/null
cmake --build build -j "$(nproc)"
