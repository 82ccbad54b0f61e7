#!/usr/bin/env bash
# Serves the bundled default model (examples/default_model: a small CNN with the seed plugin MyCustomPlugin) with a
# real Triton Inference Server and Kiln's backend, queries it once over HTTP, and stops the server.
#
#   ./scripts/serve-example.sh [--no-build]
#
# It builds Kiln (unless --no-build; KILN_BUILD_DIR names another build folder than build/), makes a model
# repository in a temporary folder (the ONNX model, the seed plugin library beside it, a config.pbtxt naming the
# library), starts tritonserver from the environment scripts/install-deps.sh makes (KILN_TRITON_VENV, else
# ~/.cache/kiln/triton-venv) on free ports, and prints the answer to one request. docs/serving.md explains each part.
# Exits 77 where that environment is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="${KILN_BUILD_DIR:-$root/build}"
if [ "${1:-}" != "--no-build" ]; then
  ./scripts/build.sh
fi
venv="${KILN_TRITON_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kiln/triton-venv}"
if [ ! -x "$venv/bin/python" ]; then
  echo "serve-example: no Triton environment at $venv; ./scripts/install-deps.sh makes it" >&2
  exit 77
fi
site="$("$venv/bin/python" -c 'import os, pytriton; print(os.path.dirname(os.path.dirname(pytriton.__file__)))')"

repository="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$repository"
}
trap cleanup EXIT

# The repository: <model>/config.pbtxt and <model>/1/model.onnx; the plugin library in the model's folder, named
# relative to it.
mkdir -p "$repository/default_model/1" "$repository/default_model/plugins"
cp examples/default_model/model.onnx "$repository/default_model/1/model.onnx"
cp "$build/examples/seed_plugins/libkiln_seed_plugins.so" "$repository/default_model/plugins/"
cat > "$repository/default_model/config.pbtxt" <<'CONFIG'
backend: "kiln"
instance_group [ { kind: KIND_CPU, count: 1 } ]
parameters { key: "plugins" value: { string_value: "plugins/libkiln_seed_plugins.so" } }
CONFIG

read -r http_port grpc_port metrics_port < <("$venv/bin/python" -c '
import socket
sockets = [socket.socket() for _ in range(3)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')
log="$repository/tritonserver.log"
LD_LIBRARY_PATH="$site/nvidia_pytriton.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$site/pytriton/tritonserver/bin/tritonserver" --model-repository="$repository" \
  --backend-directory="$build/backends" --http-port="$http_port" --grpc-port="$grpc_port" \
  --metrics-port="$metrics_port" >"$log" 2>&1 &
server_pid=$!
echo "serve-example: tritonserver (pid $server_pid) on http://127.0.0.1:$http_port, repository $repository"

"$venv/bin/python" - "$http_port" "$log" "$server_pid" <<'QUERY'
import os
import sys
import time

import numpy as np
import tritonclient.http as httpclient

port, log, server = sys.argv[1], sys.argv[2], int(sys.argv[3])
client = httpclient.InferenceServerClient("127.0.0.1:" + port)
deadline = time.monotonic() + 120
while True:
    try:
        if client.is_model_ready("default_model"):
            break
    except Exception:
        pass
    try:
        os.kill(server, 0)
    except OSError:
        sys.exit("serve-example: tritonserver exited; its log:\n" + open(log).read())
    if time.monotonic() > deadline:
        sys.exit("serve-example: the model did not load; the server's log:\n" + open(log).read())
    time.sleep(0.2)
image = np.linspace(-1.0, 1.0, 3 * 16 * 16, dtype=np.float32).reshape(1, 3, 16, 16)
request = httpclient.InferInput("input", list(image.shape), "FP32")
request.set_data_from_numpy(image)
probabilities = client.infer("default_model", [request]).as_numpy("probabilities")[0]
print("serve-example: default_model answered: class %d, probabilities %s"
      % (int(np.argmax(probabilities)), np.array2string(probabilities, precision=4)))
QUERY
