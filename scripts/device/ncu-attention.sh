#!/bin/bash
# On the GPU machine: where the quantized attention kernel's time goes. Builds kiln (Release), ViT-B/16's FP8 + FP16
# and FP16 plans at batch 8, then Nsight Compute on one launch of each plan's attention kernel.
#   run(command="bash .debs/ncu-attention.sh", carry=[".debs", ".gpu-int8"]); the models: bench/gpu_int8_make.py
# (bench/README.md). Its stall figures are in docs/performance.md ("Where the quantized attention's time goes").
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
start=$(date +%s)
source "$here/build-kiln.sh"
echo "== built after $(( $(date +%s) - start )) s"
mkdir -p /tmp/ncu
python3 bench/seeded_weights.py restore .gpu-int8/vit_b_16_fp8.onnx /tmp/ncu/fp8.onnx > /dev/null || exit 1
python3 bench/seeded_weights.py restore .gpu-int8/vit_b_16_fp8.seeded_fp32.onnx /tmp/ncu/fp32.onnx > /dev/null || exit 1
$kiln --onnx=/tmp/ncu/fp8.onnx --shapes=input:8x3x224x224 --fp8 --fp16 --backend=cuda --saveEngine=/tmp/ncu/fp8.plan \
  --skipInference > /tmp/ncu/build-fp8.log 2>&1 || { tail -5 /tmp/ncu/build-fp8.log; exit 1; }
$kiln --onnx=/tmp/ncu/fp32.onnx --shapes=input:8x3x224x224 --fp16 --backend=cuda --saveEngine=/tmp/ncu/fp16.plan \
  --skipInference > /tmp/ncu/build-fp16.log 2>&1 || { tail -5 /tmp/ncu/build-fp16.log; exit 1; }
echo "== plans after $(( $(date +%s) - start )) s"
for p in fp8 fp16; do
  timeout 150 ncu --clock-control none --kernel-name regex:attentionKernel --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section InstructionStats --metrics smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio \
    $kiln --loadEngine=/tmp/ncu/$p.plan --shapes=input:8x3x224x224 --backend=cuda --iterations=3 --warmUp=0 \
    --duration=0 --noDataTransfers > "$OUT/ncu-$p.txt" 2>&1
  echo "== $p (exit $?, after $(( $(date +%s) - start )) s)"
  grep -E "attentionKernel|Duration|Registers Per|Dynamic Shared|Achieved Occupancy|Theoretical Occupancy|Block Limit|Waves Per SM|Grid Size|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Issued Ipc|No Eligible|Warp Cycles Per Issued|Executed Instructions  |Stall|Issue Slots Busy|One or More Eligible|Active Warps Per|stalled" "$OUT/ncu-$p.txt" | head -60
done
