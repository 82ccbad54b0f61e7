"""Polygraphy's CUDA wrapper (``polygraphy.cuda.wrapper()``) over host memory, so that ``polygraphy run --trt`` runs
on a machine without a GPU against Kiln's CPU backend, whose engines take host addresses and stream 0: "device"
buffers are aligned host allocations, copies are memmoves, streams are 0. Polygraphy's TrtRunner is otherwise
unchanged; on a GPU Polygraphy's own wrapper and Kiln's CUDA backend are used instead.

``python host_cuda.py ARGS...`` runs ``polygraphy ARGS...`` with the wrapper installed."""

import ctypes
import sys

ALIGNMENT = 256  # what Kiln's engines ask of I/O memory, as cudaMalloc gives


class HostCuda:
    def __init__(self):
        self._blocks = {}  # address -> the ctypes buffer holding it

    def check(self, status):
        if status != 0:
            raise RuntimeError(f"HostCuda: status {status}")

    def create_stream(self):
        return 0

    def stream_synchronize(self, ptr):
        pass

    def destroy_stream(self, ptr):
        pass

    def malloc(self, nbytes):
        block = ctypes.create_string_buffer(int(nbytes) + ALIGNMENT)
        address = -ctypes.addressof(block) % ALIGNMENT + ctypes.addressof(block)
        self._blocks[address] = block
        return address

    def free(self, ptr):
        self._blocks.pop(ptr, None)

    def memcpy(self, dst, src, nbytes, kind, stream_ptr=None):
        ctypes.memmove(dst, src, int(nbytes))


def install():
    import polygraphy.cuda.cuda as polygraphy_cuda

    polygraphy_cuda.G_CUDA = HostCuda()


if __name__ == "__main__":
    install()
    from polygraphy.tools import main

    sys.argv = ["polygraphy"] + sys.argv[1:]
    sys.exit(main())
