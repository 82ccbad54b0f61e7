#!/bin/bash
# On the GPU machine (see README.md): Nsight Compute on one launch of a kernel in a zoo model's plan at its real size,
# to see why the kernel takes the time it does (occupancy, stalls, throughput).
#   ncu-zoo.sh MODEL SHAPES PRECISION KERNEL [SKIP]
# MODEL a zoo name (tests/models/zoo_models.py), SHAPES kiln's --shapes (e.g. features:8x80x3000), PRECISION fp32 or
# fp16, KERNEL a regular expression for the kernel's name, SKIP the launches of it to pass over first (default 2).
# Builds kiln in Release (build-kiln.sh), exports the model (export_zoo.py --real) and writes Nsight Compute's report
# to $OUT/ncu-MODEL-PRECISION.txt, printing its main figures.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
model=$1 shapes=$2 precision=$3 kernel=$4 skip=${5:-2}
source "$here/build-kiln.sh"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p /tmp/ncu-zoo
[ -e "/tmp/ncu-zoo/$model/model.onnx" ] ||
  python3 tests/models/export_zoo.py --real --out /tmp/ncu-zoo --only "$model" > /tmp/ncu-zoo/export.log 2>&1 ||
  { tail -5 /tmp/ncu-zoo/export.log; exit 1; }
plan=/tmp/ncu-zoo/$model-$precision.plan
flags=(--shapes="$shapes" --backend=cuda)
[ "$precision" = fp16 ] && flags+=(--fp16)
$kiln --onnx="/tmp/ncu-zoo/$model/model.onnx" "${flags[@]}" --saveEngine="$plan" --skipInference \
  > /tmp/ncu-zoo/build.log 2>&1 || { tail -5 /tmp/ncu-zoo/build.log; exit 1; }
report=$OUT/ncu-$model-$precision.txt
timeout 150 ncu --clock-control none --kernel-name "regex:$kernel" --launch-skip "$skip" --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section InstructionStats \
  $kiln --loadEngine="$plan" --shapes="$shapes" --backend=cuda --iterations=3 --warmUp=0 --duration=0 \
  --noDataTransfers > "$report" 2>&1
echo "== $model $precision $kernel (ncu exit $?)"
grep -E "  [a-zA-Z_:<>]*Kernel|Duration|Registers Per|Shared Memory Config|Dynamic Shared|Achieved Occupancy|Theoretical Occupancy|Block Limit|Grid Size|Block Size|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Issued Ipc|No Eligible|Warp Cycles Per Issued|Executed Ipc|Stall|One or More Eligible|Active Warps Per|Bank" "$report" | head -45
