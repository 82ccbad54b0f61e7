#!/usr/bin/env bash
# Builds NVIDIA's own trtexec, from a checkout of NVIDIA's TensorRT sources, against an installed Kiln, and runs it:
# Kiln's drop-in claim taken literally (TensorRT's command-line tool, unchanged, on Kiln's libraries).
#
#   scripts/nvidia-trtexec.sh TENSORRT_SOURCES KILN_PREFIX [TRTEXEC_ARGUMENTS...]
#
# TENSORRT_SOURCES  a checkout of github.com/NVIDIA/TensorRT (10.16 builds); only samples/common, samples/trtexec and
#                   shared/utils are read. Fetch it yourself: its code is not Kiln's and is never committed here.
# KILN_PREFIX       where `cmake --install build --prefix KILN_PREFIX` put Kiln.
# The binary goes to $TRTEXEC_BUILD (default /tmp/kiln-trtexec) and is rebuilt when its sources are newer. With no
# TRTEXEC_ARGUMENTS it is only built. trtexec runs plans of Kiln's CUDA backend, and of the CPU backend with
# KILN_CPU_TENSOR_LOCATION=device and --useManagedMemory (docs/installing.md says why).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
sources=$(cd "$1" && pwd)
prefix=$(cd "$2" && pwd)
shift 2
build=${TRTEXEC_BUILD:-/tmp/kiln-trtexec}
cuda=${CUDA_HOME:-/usr/local/cuda}
for needed in samples/trtexec/trtexec.cpp samples/common/sampleEngines.cpp shared/utils/cacheUtils.cpp; do
  [ -f "$sources/$needed" ] || { echo "nvidia-trtexec.sh: $sources has no $needed: not a TensorRT checkout" >&2; exit 2; }
done
[ -f "$prefix/include/NvInfer.h" ] || { echo "nvidia-trtexec.sh: $prefix/include has no NvInfer.h: not a Kiln install" >&2; exit 2; }
libdir=$(dirname "$(find "$prefix" -name 'libkiln.so' -print -quit)")
[ -n "$libdir" ] && [ "$libdir" != . ] || { echo "nvidia-trtexec.sh: no libkiln.so under $prefix" >&2; exit 2; }

mkdir -p "$build/objects"
units=("$sources/samples/trtexec/trtexec.cpp" "$sources"/samples/common/*.cpp "$sources"/shared/utils/*.cpp)
objects=()
for unit in "${units[@]}"; do
  objects+=("$build/objects/$(basename "$(dirname "$unit")")_$(basename "$unit" .cpp).o")
done
# Compile what changed, on every core (the loop feeding xargs runs in a subshell of its own).
for i in "${!units[@]}"; do
  [ "${objects[$i]}" -nt "${units[$i]}" ] && continue
  echo "g++ -std=c++17 -O2 -DTRT_STATIC=1 -c ${units[$i]} -I$prefix/include -I$sources/samples/common" \
    "-I$sources/shared" \
    "-I$cuda/include -o ${objects[$i]}"
done | xargs -r -P "$(nproc)" -I{} sh -c '{}'
# TRT_STATIC=1 is trtexec's own configuration for TensorRT linked in (NVIDIA builds trtexec_static so): trtexec then
# calls the entry points it links against instead of opening libnvinfer.so.10 and its siblings by those names.
# TensorRT's three libraries are Kiln's three: the network and runtime, the ONNX parser, the plugin collection.
g++ "${objects[@]}" -o "$build/trtexec" -L"$libdir" -lkiln -lkiln_onnxparser -lkiln_plugins \
  -L"$cuda/lib64" -lcudart -ldl -lpthread -Wl,-rpath,"$libdir:$cuda/lib64"
echo "nvidia-trtexec.sh: built $build/trtexec against $libdir"
if [ $# -gt 0 ]; then
  exec "$build/trtexec" "$@"
fi
