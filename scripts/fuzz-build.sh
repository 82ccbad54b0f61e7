#!/usr/bin/env bash
# Configures and builds the fuzzing build in ./build-fuzz (or $1): clang++, the CPU backend only, and every Kiln
# library compiled with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's coverage hooks
# (KILN_FUZZ_INSTRUMENT), so the fuzzers see and check the whole engine. It builds the three fuzzers and what they
# load; tests/fuzz/README.md says how to run them. CI does not run it (it takes about half an hour on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DKILN_FUZZ_INSTRUMENT=ON -DKILN_CUDA=OFF -DKILN_TRITON=OFF -DKILN_PYTHON=OFF -DKILN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target plan_fuzzer plugin_payload_fuzzer onnx_parser_fuzzer
