#!/usr/bin/env bash
# Kiln's main job: build Kiln, then run `kiln` as one would run trtexec on the bundled default
# model (examples/default_model: a small CNN with the seed plugin MyCustomPlugin as a custom ONNX
# op), on the default backend, and compare its output with the CPU reference.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./build/tools/kiln/kiln --onnx=examples/default_model/model.onnx \
  --staticPlugins=build/examples/seed_plugins/libkiln_seed_plugins.so \
  --compare=cpu
