#!/bin/bash
# On a GPU machine of several GPUs (see README.md): the zoo's table at batch 1 and 8, FP32 and FP16, every model of
# bench/zoo_gpu.py, in one run. One GPU takes longer than a machine is held to build and time the whole zoo at two
# batch sizes, so the models are dealt round-robin to the GPUs, each job on its own GPU and its own share of the CPU
# cores (PyTorch eager's and enqueued Kiln's figures are the host's speed, and must not compete with another job's
# exports). With ZOO_COMPILE (default: zoo_gpu.py's five models), the last GPU times torch.compile max-autotune on those
# models at batch 8 instead, keeping Inductor's cache as it goes (inductor-cache.sh). Longer than one call: start it
# with detached.sh, then follow it.
#   run(command="bash .debs/detached.sh start bash .debs/zoo-table.sh --seconds 0.5", carry=[".debs"],
#       kind="nvidia-h200-x4")
#   run(command="bash .debs/detached.sh follow", carry=[".debs"], kind="nvidia-h200-x4")
# Arguments go to every zoo_gpu.py. Each job's rows are $OUT/zoo-table-gpuN.txt; the jobs' warnings, one after the
# other, $OUT/zoo-table.log (one file for all: the device tool brings back at most 8 files, and a machine of four GPUs
# with torch.compile's cache and detached.sh's log would make more).
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/.."
source "$here/build-kiln.sh"
nvidia-smi --query-gpu=index,name,clocks.max.sm,clocks.max.mem --format=csv,noheader
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1  # no network: the models are made from their configurations
gpus=$(nvidia-smi --list-gpus | wc -l)
compile=${ZOO_COMPILE-resnet50,vit,convnext,bert,whisper_encoder}
[ "$gpus" -ge 2 ] || compile=""
table_gpus=$((gpus - (${#compile} > 0 ? 1 : 0)))
cores_per_job=$(($(nproc) / gpus))
read -r -a models < <(python3 -c 'import sys; sys.path.insert(0, "bench"); import zoo_gpu
print(" ".join(model.name for model in zoo_gpu.MODELS))')
echo "zoo-table: ${#models[@]} models on $table_gpus GPUs, $cores_per_job cores each; torch.compile: ${compile:-none}"

cores_of() { echo "$(($1 * cores_per_job))-$((($1 + 1) * cores_per_job - 1))"; }
jobs_running=()

for ((gpu = 0; gpu < table_gpus; gpu++)); do
  share=()
  for ((i = gpu; i < ${#models[@]}; i += table_gpus)); do share+=("${models[i]}"); done
  only=$(IFS=,; echo "${share[*]}")
  (CUDA_VISIBLE_DEVICES=$gpu taskset -c "$(cores_of $gpu)" python3 -u bench/zoo_gpu.py --kiln "$kiln" --only "$only" \
      --batch 1,8 --compile '' "$@" > "$OUT/zoo-table-gpu$gpu.txt" 2> "/tmp/zoo-table-gpu$gpu.log"
    echo "== GPU $gpu ($only) ended with exit status $?") &
  jobs_running+=($!)
done

if [ -n "$compile" ]; then
  gpu=$((gpus - 1))
  export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-cache}
  bash "$here/inductor-cache.sh" restore
  # Saved every minute, so that what max-autotune timed comes back with each follow, even from a run cut short.
  (while sleep 60; do bash "$here/inductor-cache.sh" save > /dev/null; done) &
  saver=$!
  (CUDA_VISIBLE_DEVICES=$gpu taskset -c "$(cores_of $gpu)" python3 -u bench/zoo_gpu.py --kiln "$kiln" --only "$compile" \
      --batch 8 --compile "$compile" --skip-accuracy "$@" > "$OUT/zoo-table-gpu$gpu.txt" 2> "/tmp/zoo-table-gpu$gpu.log"
    echo "== GPU $gpu (torch.compile: $compile) ended with exit status $?") &
  jobs_running+=($!)
fi

wait "${jobs_running[@]}"
[ -z "$compile" ] || { kill "$saver"; bash "$here/inductor-cache.sh" save; }
for ((gpu = 0; gpu < gpus; gpu++)); do
  [ ! -s "/tmp/zoo-table-gpu$gpu.log" ] || { echo "== GPU $gpu"; cat "/tmp/zoo-table-gpu$gpu.log"; } >> "$OUT/zoo-table.log"
done
for table in "$OUT"/zoo-table-gpu*.txt; do
  echo "== $table"
  sed -n '/^Summary/,$p' "$table"
done
