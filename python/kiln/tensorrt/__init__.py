"""TensorRT's Python API on Kiln: ``import kiln.tensorrt as trt``.

The classes and functions come from the extension ``kiln._tensorrt``; what TensorRT's own package writes in Python
(``nptype``, ``volume``, the ``Dims2``-style shapes and the data type aliases) is here.
"""

import numpy as _np

from kiln._tensorrt import *  # noqa: F401,F403 (the API is the extension's public names)
from kiln._tensorrt import DataType, Dims, INetworkDefinition, IProfiler, __version__  # noqa: F401

# TensorRT's short names of the data types.
float32 = DataType.FLOAT
float16 = DataType.HALF
bfloat16 = DataType.BF16
int8 = DataType.INT8
int32 = DataType.INT32
int64 = DataType.INT64
uint8 = DataType.UINT8
bool = DataType.BOOL  # noqa: A001 (TensorRT's name, shadowing the builtin inside this module only)
fp8 = DataType.FP8
int4 = DataType.INT4
fp4 = DataType.FP4

_NUMPY_TYPES = {
    DataType.FLOAT: _np.float32,
    DataType.HALF: _np.float16,
    DataType.INT8: _np.int8,
    DataType.INT32: _np.int32,
    DataType.INT64: _np.int64,
    DataType.UINT8: _np.uint8,
    DataType.BOOL: _np.bool_,
}


def nptype(trt_type):
    """The numpy type of a DataType; TypeError for the types numpy lacks (BF16, FP8, INT4, FP4)."""
    try:
        return _NUMPY_TYPES[trt_type]
    except KeyError:
        raise TypeError(f"numpy has no type for {trt_type}") from None


def volume(iterable):
    """The product of a shape's extents (1 for a scalar's empty shape)."""
    product = 1
    for extent in iterable:
        product *= extent
    return product


class Dims2(Dims):
    """A 2-D shape."""

    __slots__ = ()

    def __new__(cls, d0, d1):
        return super().__new__(cls, (d0, d1))


class DimsHW(Dims2):
    """A 2-D shape of height and width."""

    __slots__ = ()

    @property
    def h(self):
        return self[0]

    @property
    def w(self):
        return self[1]


class Dims3(Dims):
    """A 3-D shape."""

    __slots__ = ()

    def __new__(cls, d0, d1, d2):
        return super().__new__(cls, (d0, d1, d2))


class Dims4(Dims):
    """A 4-D shape."""

    __slots__ = ()

    def __new__(cls, d0, d1, d2, d3):
        return super().__new__(cls, (d0, d1, d2, d3))


class Profiler(IProfiler):
    """An IProfiler that prints each layer's time after a run, one line per layer."""

    def __init__(self):
        IProfiler.__init__(self)

    def report_layer_time(self, layer_name, ms):
        print(f"{layer_name}: {ms:.5f}ms")


def _add_plugin(self, call, aot=False):
    """Adds a plugin defined with the decorators of ``tensorrt.plugin``: ``network.add_plugin(
    trtp.op.namespace.name(inputs..., attribute=value...))``; returns the IPluginV3Layer, or None."""
    from kiln.tensorrt.plugin import add_plugin

    return add_plugin(self, call, aot)


INetworkDefinition.add_plugin = _add_plugin
