"""Kiln, an open inference engine with TensorRT's API.

``import kiln.tensorrt as trt`` gives TensorRT's Python API; this package adds Kiln's own choices:

- ``Backend``: where engines run (``config.kiln_backend = kiln.Backend.CPU``); ``default_backend()`` and
  ``backend_available(backend)`` say what this machine offers.
- ``CpuKernels``: the CPU backend's kernels (``config.kiln_cpu_kernels``).
"""

from kiln._tensorrt import Backend, CpuKernels, backend_available, default_backend, kiln_version as __version__

__all__ = ["Backend", "CpuKernels", "backend_available", "default_backend"]
