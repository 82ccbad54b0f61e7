#!/bin/bash
# On the GPU machine (see README.md): builds kiln as bench.sh does and writes a per-layer profile of ResNet-50 in
# FP16 to $OUT/profile.txt (kiln's --dumpProfile, timed with CUDA events), printing the throughput.
#   profile.sh [BATCH] [KILN FLAGS...]   BATCH: 256 by default; e.g. profile.sh 1 --noDataTransfers
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
source "$here/build-kiln.sh"
[ -e /tmp/r50.onnx ] || python3 -c "
import sys; sys.path.insert(0,'bench'); import resnet50_gpu as b; b.export_resnet50('/tmp/r50.onnx')" 2>&1 | tail -2
batch=${1:-256}
"$kiln" --onnx=/tmp/r50.onnx --backend=cuda --shapes=input:${batch}x3x224x224 --fp16 \
  --duration=1 --warmUp=200 --dumpProfile --separateProfileRun ${@:2} > $OUT/profile.txt 2>&1
grep -E "Throughput|Latency:" $OUT/profile.txt
