"""Tensors of ``tensorrt.plugin``: ``TensorDesc`` (what a shape function gets and returns: a symbolic shape and a
data type) and ``Tensor`` (what an implementation gets: the memory of an input or output while the plugin runs)."""

import numpy as np

import kiln.tensorrt as _trt

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
    cupy or numba view it (``torch.as_tensor(tensor, device="cuda")``), and there is no numpy view. The memory is
    Kiln's and valid only during the call."""

    def __init__(self, address, shape, dtype, format=None, on_device=False):
        self._address = int(address)
        self._shape = tuple(int(extent) for extent in shape)
        self._dtype = dtype
        self._format = _trt.TensorFormat.LINEAR if format is None else format
        self._on_device = on_device

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
        return self._interface()

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
