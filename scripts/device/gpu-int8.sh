#!/bin/bash
# On the GPU machine (see README.md; run from .debs/, as the others): bench/gpu_int8.py on a Release kiln, and the
# quantized model's build at the largest batch on its own, so that its log says which INT8 convolutions run cuDNN's
# graph engines and how long the build and a context's first run take.
#   gpu-int8.sh MODEL QUANTIZED [BATCHES]   MODEL: gpu_int8.py's --model; QUANTIZED: gpu_int8_make.py's output
#                                           (carried, e.g. .gpu-int8/resnet50_int8.onnx.gz); BATCHES default 1,8,256
# run(command="bash .debs/gpu-int8.sh resnet50 .gpu-int8/resnet50_int8.onnx.gz", carry=[".debs", ".gpu-int8"])
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
export PYTHONUNBUFFERED=1
start=$(date +%s)
source "$here/build-kiln.sh" || exit 1
echo "== built after $(( $(date +%s) - start )) s on $(nvidia-smi --query-gpu=name --format=csv,noheader)"
model=$2
if [[ $model == *.gz ]]; then
  gunzip -c "$model" > /tmp/quantized.onnx && model=/tmp/quantized.onnx || exit 1
fi
largest=$(echo "${3:-1,8,256}" | tr ',' '\n' | sort -n | tail -1)
size=$(cd bench && python3 -c "import gpu_int8; print(gpu_int8.MODELS['$1'].image_size)") || exit 1
t=$(date +%s)
$kiln --onnx="$model" --backend=cuda --int8 --shapes=input:${largest}x3x${size}x${size} --saveEngine=/tmp/quantized.plan \
  --skipInference --verbose 2>&1 | grep -E "INT8 convolutions|rror" | head -5
echo "== built the batch-$largest plan in $(( $(date +%s) - t )) s"
t=$(date +%s)
$kiln --loadEngine=/tmp/quantized.plan --shapes=input:${largest}x3x${size}x${size} --iterations=1 --duration=0 --warmUp=0 \
  2>&1 | grep -E "rror|GPU Compute Time" | head -3
echo "== loaded it and ran it once in $(( $(date +%s) - t )) s"
python3 bench/gpu_int8.py --kiln "$kiln" --model "$1" --int8-model "$2" --batches "${3:-1,8,256}" --seconds 1 |
  tee "$OUT/gpu_int8.txt"
echo "== done after $(( $(date +%s) - start )) s"
