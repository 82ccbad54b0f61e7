#!/usr/bin/env bash
# Kiln's main job on the bundled example: load the seed plugin library and list
# every registered plugin creator with its fields.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./build/tools/kiln/kiln plugins --staticPlugins=build/examples/seed_plugins/libkiln_seed_plugins.so
