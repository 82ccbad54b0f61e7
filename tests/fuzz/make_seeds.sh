#!/usr/bin/env bash
# Rewrites tests/fuzz/seeds/plans/: the small CPU plans both plan fuzzers start from. Run it from the repository root
# after changing the plan format (kPlanFormatVersion), with a build whose plugin collection test, seed workflow and
# kiln command are built:
#   ninja -C build-cpu -j2 plugin_collection_test seed_workflow kiln_seed_plugins kiln_cli && tests/fuzz/make_seeds.sh
# Plans: one per plugin name and version of Kiln's collection (as its tests build them), one per seed plugin, and a
# few plain networks from ONNX's node tests (one per layer family).
set -euo pipefail
build=${1:-build-cpu}
onnx_data=${KILN_ONNX_TESTDATA:-/usr/share/libonnx-testdata/data/node}
out=tests/fuzz/seeds/plans
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$(cd "$build" && pwd)

(cd "$(mktemp -d)" && KILN_FUZZ_SEED_DIR="$out" "$build/tests/plugins/plugin_collection_test" \
  --gtest_filter='-*Cuda*:*CUDA*' > /dev/null)

for plugin in MyCustomPlugin FooPlugin CustomPlugin ScaledAdd; do
  "$build/tests/seed_workflow/seed_workflow" build "$build/examples/seed_plugins/libkiln_seed_plugins.so" "$plugin" \
    "$out/seed_$plugin.plan" cpu
done

for model in test_add test_conv_with_strides_padding test_resize_upsample_scales_nearest test_reshape_negative_dim \
    test_slice test_gather_0 test_cumsum_1d test_einsum_transpose test_tril test_range_float_type_positive_delta \
    test_maxpool_2d_pads test_softmax_axis_1 test_concat_3d_axis_1 test_matmul_2d test_where_example \
    test_if test_nonzero_example test_top_k; do
  "$build/tools/kiln/kiln" --onnx="$onnx_data/$model/model.onnx" --backend=cpu --skipInference \
    --saveEngine="$out/onnx_$model.plan" > /dev/null 2>&1 || echo "no plan from $model (Kiln cannot build it)"
done
du -sh "$out"
