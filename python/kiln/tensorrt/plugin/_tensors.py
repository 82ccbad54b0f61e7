"""Tensors of ``tensorrt.plugin``: ``TensorDesc`` (what a shape function gets and returns: a symbolic shape and a
data type) and ``Tensor`` (what an implementation gets: the memory of an input or output while the plugin runs)."""

import numpy as np

import kiln.tensorrt as _trt
from kiln._tensorrt import _cuda_device_of, _cuda_stream_wait, _dlpack_capsule

_DLPACK_CPU = 1  # DLPack's kDLCPU and kDLCUDA device types
_DLPACK_CUDA = 2

from ._shapes import ShapeExprs, as_shape_exprs


class TensorDesc:
    """A tensor's symbolic shape (``shape_expr``), ``dtype``, ``format`` and ``scale``; never its data."""

    def __init__(self, shape_expr=None, dtype=None, format=None, scale=None):
        self._shape_expr = None if shape_expr is None else as_shape_exprs(shape_expr)
        if dtype is not None and not isinstance(dtype, _trt.DataType):
            raise TypeError(f"TensorDesc: dtype must be a tensorrt.DataType, not {type(dtype).__name__}")
        self.dtype = dtype
        self.format = _trt.TensorFormat.LINEAR if format is None else format
        self.scale = scale

    @property
    def has_shape(self):
        return self._shape_expr is not None

    @property
    def shape_expr(self):
        if self._shape_expr is None:
            raise ValueError("this TensorDesc has no shape")
        return self._shape_expr

    @shape_expr.setter
    def shape_expr(self, value):
        self._shape_expr = as_shape_exprs(value)

    @property
    def ndim(self):
        return len(self.shape_expr)

    @property
    def is_size_tensor(self):
        return False

    def like(self):
        """A new description with this one's shape, type and format."""
        return TensorDesc(ShapeExprs(list(self.shape_expr)), self.dtype, self.format, self.scale)

    def aliased(self):
        raise NotImplementedError("Kiln does not support aliased plugin outputs (TensorDesc.aliased) yet")

    def __repr__(self):
        shape = repr(self._shape_expr) if self._shape_expr is not None else "no shape"
        return f"TensorDesc({shape}, dtype={self.dtype})"


def from_shape_expr(shape_expr, dtype):
    """A TensorDesc of the given shape (ShapeExprs, or a sequence of ints and ShapeExpr) and data type."""
    return TensorDesc(shape_expr, dtype)


class Tensor:
    """An input or output of an implementation while it runs.

    On Kiln's CPU backend the memory is the host's: ``numpy()`` (or ``np.asarray(tensor)``, through
    ``__array_interface__``) gives a numpy array viewing it, and writing into an output's array is how an
    implementation gives its result. On the CUDA backend it is the device's: ``__cuda_array_interface__`` lets torch,
    cupy or numba view it (``torch.as_tensor(tensor, device="cuda")``), and there is no numpy view. On both, DLPack
    (``__dlpack__``, ``__dlpack_device__``) hands it to ``torch.from_dlpack``, cupy or ``numpy.from_dlpack`` (host
    memory only). The memory is Kiln's and valid only during the call."""

    def __init__(self, address, shape, dtype, format=None, on_device=False, stream=None):
        self._address = int(address)
        self._shape = tuple(int(extent) for extent in shape)
        self._dtype = dtype
        self._format = _trt.TensorFormat.LINEAR if format is None else format
        self._on_device = on_device
        self._stream = None if stream is None else int(stream)  # the CUDA stream Kiln runs the plugin on

    @property
    def data_ptr(self):
        return self._address

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def format(self):
        return self._format

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def on_device(self):
        """Kiln's: whether the memory is a GPU's (the CUDA backend) rather than the host's (the CPU backend)."""
        return self._on_device

    @property
    def is_data_dependent(self):
        return False

    def numel(self):
        return _trt.volume(self._shape)

    def _numpy_dtype(self):
        try:
            return np.dtype(_trt.nptype(self._dtype))
        except TypeError:
            raise TypeError(f"a plugin tensor of type {self._dtype} has no numpy view") from None

    def _interface(self):
        return {
            "shape": self._shape,
            "typestr": self._numpy_dtype().str,
            "data": (self._address, False),
            "strides": None,
            "version": 3,
        }

    @property
    def __array_interface__(self):
        if self._on_device:
            raise AttributeError("a plugin tensor in GPU memory has no __array_interface__")
        return self._interface()

    @property
    def __cuda_array_interface__(self):
        if not self._on_device:
            raise AttributeError("a plugin tensor in host memory (Kiln's CPU backend) has no __cuda_array_interface__")
        interface = self._interface()
        # Version 3's stream: consumers order their work after it. The interface forbids 0 as ambiguous; handle 0 is
        # CUDA's legacy default stream, which the interface writes as 1.
        interface["stream"] = None if self._stream is None else (self._stream or 1)
        return interface

    def __dlpack_device__(self):
        """DLPack's (device type, device id): (kDLCUDA = 2, the pointer's device) or (kDLCPU = 1, 0)."""
        if self._on_device:
            return (_DLPACK_CUDA, _cuda_device_of(self._address))
        return (_DLPACK_CPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing the tensor (never a copy). On the device, the consumer's `stream` (None: the
        legacy default stream, 1; -1: no ordering) is made to wait for the stream the plugin runs on."""
        if copy:
            raise BufferError("a plugin tensor is Kiln's memory, viewed in place: DLPack with copy=True is refused")
        device = self.__dlpack_device__()
        if dl_device is not None and tuple(dl_device) != device:
            raise BufferError(f"a plugin tensor on DLPack device {device} cannot be exported to {tuple(dl_device)}")
        if self._on_device and self._stream is not None and stream != -1:
            _cuda_stream_wait(1 if stream is None else int(stream), self._stream)
        return _dlpack_capsule(self._address, self._shape, self._dtype, self._on_device, device[1])

    def numpy(self):
        """A numpy array viewing the tensor's memory (writable); on the CPU backend only."""
        if self._on_device:
            raise TypeError("a plugin tensor in GPU memory has no numpy view: use __cuda_array_interface__ (torch, "
                            "cupy)")
        if self.numel() == 0:
            return np.empty(self._shape, self._numpy_dtype())
        return np.asarray(self)

    def __repr__(self):
        where = "device" if self._on_device else "host"
        return f"Tensor(shape={self._shape}, dtype={self._dtype}, {where} data_ptr=0x{self._address:x})"
