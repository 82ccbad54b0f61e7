"""``tensorrt.plugin.Tensor``: what an implementation gets, the memory of an input or output while the plugin
runs."""

import numpy as np

import kiln.tensorrt as _trt
from kiln._tensorrt import _cuda_device_of, _cuda_stream_wait, _dlpack_capsule

from ._shape import Shape

_DLPACK_CPU = 1  # DLPack's kDLCPU and kDLCUDA device types
_DLPACK_CUDA = 2


class Tensor:
    """An input or output of an implementation while it runs.

    On Kiln's CPU backend the memory is the host's: ``numpy()`` (or ``np.asarray(tensor)``, through
    ``__array_interface__``) gives a numpy array viewing it, and writing into an output's array is how an
    implementation gives its result. On the CUDA backend it is the device's: ``__cuda_array_interface__`` lets torch,
    cupy or numba view it (``torch.as_tensor(tensor, device="cuda")``), and there is no numpy view. On both, DLPack
    (``__dlpack__``, ``__dlpack_device__``) hands it to ``torch.from_dlpack``, cupy or ``numpy.from_dlpack`` (host
    memory only). The memory is Kiln's and valid only during the call."""

    def __init__(self, address, shape, dtype, format=None, on_device=False, stream=None, scale=None, capacity=None):
        self._address = int(address)
        self._shape = Shape(tuple(shape))  # -1 where an output's extent is data-dependent
        self._dtype = dtype
        self._format = _trt.TensorFormat.LINEAR if format is None else format
        self._on_device = on_device
        self._stream = None if stream is None else int(stream)  # the CUDA stream Kiln runs the plugin on
        self._scale = scale
        # How many elements the memory holds: a data-dependent output's upper bound.
        if capacity is None:
            capacity = 0 if self._shape.is_dynamic else self._shape.numel()
        self._capacity = int(capacity)
        self._aliased_to = None

    @property
    def data_ptr(self):
        return self._address

    @property
    def shape(self):
        """The extents (a ``Shape``, equal to the tuple of them); -1 for a data-dependent extent."""
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def format(self):
        return self._format

    @property
    def scale(self):
        return self._scale

    @property
    def strides(self):
        """The distance in elements between neighbours along each axis (Kiln's plugin tensors are dense)."""
        strides, step = [], 1
        for extent in reversed(tuple(self._shape)):
            strides.append(step)
            step *= max(extent, 1)
        return tuple(reversed(strides))

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def on_device(self):
        """Kiln's: whether the memory is a GPU's (the CUDA backend) rather than the host's (the CPU backend)."""
        return self._on_device

    @property
    def is_data_dependent(self):
        """Whether an extent is known only once the plugin has computed it (an output of a size tensor's extent)."""
        return self._shape.is_dynamic

    def numel(self):
        if self.is_data_dependent:
            raise ValueError(f"{self!r} has a data-dependent extent: view it with aliased(shape) once it is known")
        return self._shape.numel()

    def aliased(self, shape=None):
        """A Tensor of the same memory with another `shape` (a tuple, Shape or PluginTensorDesc; this one's by
        default): how an implementation writes a data-dependent output once it knows the extents. The shape must
        fit the memory."""
        if isinstance(shape, _trt.PluginTensorDesc):
            shape = tuple(shape.dims)
        elif shape is None:
            shape = tuple(self._shape)
        elif not isinstance(shape, (tuple, list, Shape)):
            raise ValueError(f"Tensor.aliased takes a tuple, Shape or PluginTensorDesc, not {type(shape).__name__}")
        view = Tensor(self._address, tuple(int(extent) for extent in shape), self._dtype, self._format,
                      self._on_device, self._stream, self._scale, self._capacity)
        if not view.is_data_dependent and view.numel() > self._capacity:
            raise ValueError(f"Tensor.aliased: {Shape(tuple(shape))} has {view.numel()} elements; the memory holds "
                             f"{self._capacity}")
        view._aliased_to = self
        return view

    def get_aliased(self):
        """The tensor this one is aliased to (the input an in-place output reuses, the tensor a view was made of),
        or None."""
        return self._aliased_to

    @property
    def is_aliased(self):
        return self._aliased_to is not None

    def _numpy_dtype(self):
        try:
            return np.dtype(_trt.nptype(self._dtype))
        except TypeError:
            raise TypeError(f"a plugin tensor of type {self._dtype} has no numpy view") from None

    def _checked_shape(self):
        if self.is_data_dependent:
            raise ValueError(f"{self!r} has a data-dependent extent: view it with aliased(shape) once it is known")
        return tuple(self._shape)

    def _interface(self):
        return {
            "shape": self._checked_shape(),
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
        return _dlpack_capsule(self._address, self._checked_shape(), self._dtype, self._on_device, device[1])

    def numpy(self):
        """A numpy array viewing the tensor's memory (writable); on the CPU backend only."""
        if self._on_device:
            raise TypeError("a plugin tensor in GPU memory has no numpy view: use __cuda_array_interface__ (torch, "
                            "cupy)")
        if self.numel() == 0:
            return np.empty(tuple(self._shape), self._numpy_dtype())
        return np.asarray(self)

    def __repr__(self):
        where = "device" if self._on_device else "host"
        return f"Tensor(shape={tuple(self._shape)}, dtype={self._dtype}, {where} data_ptr=0x{self._address:x})"
