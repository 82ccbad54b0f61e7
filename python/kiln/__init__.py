"""Kiln, an open inference engine with TensorRT's API.

``import kiln.tensorrt as trt`` gives TensorRT's Python API; this package adds Kiln's own choices:

- ``Backend``: where engines run (``config.kiln_backend = kiln.Backend.CPU``); ``default_backend()`` and
  ``backend_available(backend)`` say what this machine offers.
- ``CpuKernels``: the CPU backend's kernels (``config.kiln_cpu_kernels``).

Importing it sets ``GOMP_SPINCOUNT=3000`` in the environment where neither it nor ``OMP_WAIT_POLICY`` is set (see
below).
"""

import os as _os

# libgomp, on whose threads the CPU backend runs, reads how long an idle thread spins before it sleeps from the
# environment once, when it is loaded: the extension below loads it. Its default (300,000 spins, milliseconds) makes
# the CPU backend crawl on cores that other work shares; 3,000 spins still bridge the gaps between a run's layers
# (tools/kiln/openmp_waiting.cpp, which sets the same for the kiln command, says why; docs/performance.md shows it).
# A user's own setting wins; so does that of a libgomp already loaded.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "3000"

from kiln._tensorrt import Backend, CpuKernels, backend_available, default_backend, kiln_version as __version__

__all__ = ["Backend", "CpuKernels", "backend_available", "default_backend"]
