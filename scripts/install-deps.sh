#!/usr/bin/env bash
# Installs what Kiln needs to build and test, from Debian's packages.
# Non-interactive and idempotent: packages already present are left as they are.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config ccache
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libdnnl-dev  # the CPU backend's fast path (oneDNN)
  python3 python3-pip python3-dev  # python3-dev: the Python extension, where python3 is Debian's
  clang libclang-rt-14-dev  # the ONNX parser's fuzz test (libFuzzer)
  clang-format  # the style check (scripts/check-format.sh); Debian 12's is version 14, which it expects
  python3-venv  # the Triton backend's tests run the real server from a virtual environment of their own
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The ONNX architecture tests compare with ONNX Runtime, from PyPI (tests/requirements.txt). Debian's own Python
# refuses system-wide pip installs (PEP 668) unless told otherwise; a pyenv or venv Python accepts them as they are.
install_python_requirements() {
  local requirements
  requirements="$(dirname "$0")/../tests/requirements.txt"
  python3 -m pip install -q -r "$requirements" \
    || python3 -m pip install -q --break-system-packages -r "$requirements" \
    || echo "install-deps: WARNING: could not install $requirements from PyPI;" \
            "the ONNX Runtime comparison test will report itself as skipped" >&2
}

# The Triton backend's tests (tests/triton) start a real tritonserver: PyPI's nvidia-pytriton carries it. It goes
# into a virtual environment of its own ($KILN_TRITON_VENV, else ~/.cache/kiln/triton-venv, where the tests look),
# since its dependencies do not share tests/requirements.txt's pins.
install_triton_environment() {
  local requirements venv
  requirements="$(dirname "$0")/../tests/triton/requirements.txt"
  venv="${KILN_TRITON_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/kiln/triton-venv}"
  { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } \
    && "$venv/bin/python" -m pip install -q -r "$requirements" \
    || echo "install-deps: WARNING: could not install $requirements into $venv;" \
            "the Triton backend's tests will report themselves as skipped" >&2
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  install_python_requirements
  install_triton_environment
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
install_python_requirements
install_triton_environment
