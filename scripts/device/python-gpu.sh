#!/bin/bash
# On the GPU machine, from the repository root: the Python API on Kiln's CUDA backend.
#   run(command="bash scripts/device/python-gpu.sh", carry=[".debs"])
# Builds Kiln with CUDA and the Python extension through .debs/check.sh (target kiln_python; CTest's python_api),
# then runs pytest -v on tests/python with the Python the build found, so that every test's result is printed:
# the CUDA ones are tests/python/test_cuda_backend.py (torch tensors and streams, Python plugins computing in torch)
# and test_cuda_callbacks.py (EfficientNet built with Python callbacks and cuDNN timing, run on torch memory), skipped
# with the reason where torch, a GPU or Kiln's CUDA backend is missing; test_polygraphy.py runs Polygraphy's run on
# Kiln's CUDA backend. Last, `polygraphy run --trt --onnxrt` once more with its output in $OUT/polygraphy.txt; both
# need Polygraphy's wheel in .debs/wheels. Where the machine has no pybind11, a wheel of it in .debs/wheels is
# used (`pip download pybind11 --no-deps -d .debs/wheels` here). Logs go to $OUT.
if [ ! -d tests/python ] || [ ! -f .debs/check.sh ]; then
  echo "python-gpu.sh: run from the repository root, with .debs carried"; exit 2
fi
OUT=${OUT:-/tmp/python-gpu-out}; mkdir -p "$OUT"

if ! python3 -m pybind11 --cmakedir >/dev/null 2>&1; then
  wheel=$(ls .debs/wheels/pybind11-*.whl 2>/dev/null | tail -1)
  [ -n "$wheel" ] || { echo "python-gpu.sh: no pybind11 on this machine, and none in .debs/wheels"; exit 2; }
  python3 -m pip install -q --no-deps --target /tmp/pybind11 "$wheel" || exit 2
  export PYTHONPATH=/tmp/pybind11${PYTHONPATH:+:$PYTHONPATH}  # CMake asks `python3 -m pybind11 --cmakedir`
fi
echo "== python3 $(python3 -c 'import sys; print(sys.version.split()[0])'), pybind11 $(python3 -m pybind11 --version)"
python3 -c "import torch; print('== torch', torch.__version__, 'GPU:', torch.cuda.is_available())" 2>&1 | tail -1

echo "== build with CUDA and the extension; CTest python_api"
bash .debs/check.sh python_api . kiln_python
echo "== check.sh exit status: $?"

build=/tmp/build-tree  # check.sh's build folder for the working tree
python=$(sed -n 's/^_Python_EXECUTABLE:INTERNAL=//p' $build/CMakeCache.txt)
python=${python:-python3}
# Debian's ONNX and protobuf, as check.sh has them.
export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
export PYTHONPATH=$build/python/package${PYTHONPATH:+:$PYTHONPATH} PYTHONDONTWRITEBYTECODE=1
# Polygraphy (pure Python) for test_polygraphy.py and the run below, where .debs/wheels holds its wheel.
polygraphy=$(ls .debs/wheels/polygraphy-*.whl 2>/dev/null | tail -1)
if [ -n "$polygraphy" ]; then
  "$python" -m pip install -q --no-deps --target /tmp/polygraphy "$polygraphy" 2>&1 | tail -2
  export PYTHONPATH=$PYTHONPATH:/tmp/polygraphy
fi
echo "== pytest -v tests/python ($python)"
timeout 450 "$python" -X faulthandler -m pytest -v -rs -p no:cacheprovider tests/python > "$OUT/pytest.txt" 2>&1
status=$?
# Every GPU test's result, the others' only where not passed (the whole list is in $OUT/pytest.txt).
grep -E "test_cuda_backend.py::|test_cuda_callbacks.py::|test_cuda_samples.py::|test_polygraphy.py::|FAILED|ERROR|SKIPPED|passed|failed" \
  "$OUT/pytest.txt" | sed 's/ *\[ *[0-9]*%\]$//'
[ $status -eq 0 ] || grep -A40 -E "^_{3,} .* _{3,}$" "$OUT/pytest.txt" | head -150
echo "== pytest exit status: $status"

if [ -n "$polygraphy" ]; then
  "$python" -m kiln.alias install --target /tmp/alias 2>&1 | tail -2
  # Only the relative tolerance: the model's random weights make its logits about 1e-11. faulthandler prints the
  # Python stack of a crash.
  echo "== polygraphy run --trt --onnxrt (tests/models/efficientnet)"
  PYTHONPATH=/tmp/alias:$PYTHONPATH timeout 150 "$python" -X faulthandler -c \
    "import sys; from polygraphy.tools import main; sys.argv = ['polygraphy'] + sys.argv[1:]; sys.exit(main())" \
    run tests/models/efficientnet/model.onnx --trt --onnxrt --input-shapes image:[1,3,64,64] --atol 0 --rtol 1e-2 \
    > "$OUT/polygraphy.txt" 2>&1
  echo "== polygraphy exit status: $?"
  tail -25 "$OUT/polygraphy.txt"
fi
exit $status
