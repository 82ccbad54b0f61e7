#!/usr/bin/env bash
# Rewrites tests/fuzz/seeds/plans/: the small CPU plans both plan fuzzers start from, then remakes the plan fuzzer's
# findings (regressions/plan) from them. Run it from the repository root after changing the plan format
# (kPlanFormatVersion), with a build (build-cpu, or the one named as the argument) whose plugin collection test, seed
# workflow, kiln command and plan regression test are built:
#   ninja -C build-cpu -j2 plugin_collection_test seed_workflow kiln_seed_plugins kiln_cli plan_regression_test \
#     && tests/fuzz/make_seeds.sh
# Plans: one per plugin name and version of Kiln's collection (as its tests build them), one per seed plugin, and a
# few networks from ONNX's node tests, the ONNX fuzzer's valid seeds and the bundled example.
set -euo pipefail
build=${1:-build-cpu}
onnx_data=${KILN_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data/node}
out=tests/fuzz/seeds/plans
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$(cd "$build" && pwd)

(cd "$(mktemp -d)" && KILN_FUZZ_SEED_DIR="$out" "$build/tests/plugins/plugin_collection_test" \
  --gtest_filter='-*Cuda*:*CUDA*:*PayloadRegression*' > /dev/null)

for plugin in MyCustomPlugin FooPlugin CustomPlugin ScaledAdd; do
  "$build/tests/seed_workflow/seed_workflow" build "$build/examples/seed_plugins/libkiln_seed_plugins.so" "$plugin" \
    "$out/seed_$plugin.plan" cpu
done

# ONNX node tests whose weights are initializers (Kiln builds those), one per layer family.
for model in test_add test_gather_0 test_tril test_maxpool_2d_pads test_softmax_axis_1 test_concat_3d_axis_1 \
    test_matmul_2d test_where_example test_if test_nonzero_example; do
  "$build/tools/kiln/kiln" --onnx="$onnx_data/$model/model.onnx" --backend=cpu --skipInference \
    --saveEngine="$out/onnx_$model.plan" > /dev/null
done
# The ONNX fuzzer's valid seeds (tests/onnx/fuzz/make_seeds.py): the layers whose sizes come from the model
# (convolution, OneHot, Range, Tile, Pad, a shape-tensor input, NonZero...), for plan_mutations.h to change. The
# external-data one needs its weights beside it, so it is left out; the shape-tensor input S gets its values from
# --shapes, as trtexec gives them.
for model in tests/onnx/fuzz/seeds/valid_*.onnx; do
  name=$(basename "$model" .onnx)
  [ "$name" = valid_external ] && continue
  values=()
  [ "$name" = valid_shape_input ] && values=(--shapes=S:1x1)
  "$build/tools/kiln/kiln" --onnx="$model" --backend=cpu --skipInference "${values[@]}" \
    --saveEngine="$out/onnx_$name.plan" > /dev/null
done
# The bundled example: convolutions and a seed plugin.
"$build/tools/kiln/kiln" --onnx=examples/default_model/model.onnx --backend=cpu --skipInference \
  --staticPlugins="$build/examples/seed_plugins/libkiln_seed_plugins.so" --saveEngine="$out/default_model.plan" > /dev/null
du -sh "$out"

# Each finding is its seed plan with the damage plan_regression_test.cpp lists for it, written again by this format's
# writer; the test then checks that each gives the error of the check added for it.
KILN_FUZZ_REGRESSION_DIR="$(cd tests/fuzz/regressions/plan && pwd)" "$build/tests/fuzz/plan_regression_test" \
  --gtest_brief=1
