#!/bin/bash
# On the GPU machine (see README.md): builds kiln as bench.sh does and writes a per-layer profile of ResNet-50 in
# FP16 to $OUT/profile.txt (kiln's --dumpProfile, timed with CUDA events), printing the throughput.
#   profile.sh [BATCH] [KILN FLAGS...]   BATCH: 256 by default; e.g. profile.sh 1 --noDataTransfers
cd "$(dirname "$0")/.."
mkdir -p /tmp/deps
for p in libonnx-dev libonnx1 libprotobuf-dev libprotobuf32 libprotobuf-lite32 libonnxifi protobuf-compiler libprotoc32 nlohmann-json3-dev libcli11-dev; do
  [ -e /tmp/deps/.$p ] || { dpkg -x .debs/${p}_*.deb /tmp/deps && touch /tmp/deps/.$p; }
done
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
cmake -S . -B /tmp/build-bench -G Ninja -DKILN_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH=/tmp/deps/usr -DProtobuf_INCLUDE_DIR=/tmp/deps/usr/include \
  -DProtobuf_LIBRARY=/tmp/deps/usr/lib/x86_64-linux-gnu/libprotobuf.so \
  -DProtobuf_PROTOC_EXECUTABLE=/tmp/deps/usr/bin/protoc > /tmp/cfg.log 2>&1 || { tail -30 /tmp/cfg.log; exit 1; }
cmake --build /tmp/build-bench -j16 --target kiln_cli > /tmp/build.log 2>&1 || { grep -E "error" -A3 /tmp/build.log | head -40; exit 1; }
[ -e /tmp/r50.onnx ] || python3 -c "
import sys; sys.path.insert(0,'bench'); import resnet50_gpu as b; b.export_resnet50('/tmp/r50.onnx')" 2>&1 | tail -2
batch=${1:-256}
/tmp/build-bench/tools/kiln/kiln --onnx=/tmp/r50.onnx --backend=cuda --shapes=input:${batch}x3x224x224 --fp16 \
  --duration=1 --warmUp=200 --dumpProfile --separateProfileRun ${@:2} > $OUT/profile.txt 2>&1
grep -E "Throughput|Latency:" $OUT/profile.txt
