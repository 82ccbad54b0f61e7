"""``tensorrt.plugin.Shape``: a tensor's concrete extents, as an implementation gets them (``Tensor.shape``) and an
autotune function sees them (``TensorDesc.shape``). An extent of -1 is dynamic there (an autotune function's input
of a dynamic network: ``min``, ``opt`` and ``max`` give its profile's bounds) or data-dependent (an implementation's
output whose extent the plugin computes)."""

import numpy as np

import kiln.tensorrt as _trt


class Shape:
    """A sequence of integer extents that can be indexed, iterated and changed in place; equal to a tuple of the
    same extents."""

    def __init__(self, tensor_desc=None):
        self._bounds = None
        if tensor_desc is None:
            extents = ()
        elif isinstance(tensor_desc, _trt.DynamicPluginTensorDesc):
            extents = tuple(tensor_desc.desc.dims)
            self._bounds = (tuple(tensor_desc.min), tuple(tensor_desc.opt), tuple(tensor_desc.max))
        elif isinstance(tensor_desc, _trt.PluginTensorDesc):
            extents = tuple(tensor_desc.dims)
        elif isinstance(tensor_desc, (tuple, list, Shape, _trt.Dims)):
            extents = tuple(tensor_desc)
        else:
            raise ValueError("a Shape is made from a tuple of ints, a DynamicPluginTensorDesc or a PluginTensorDesc, "
                             f"not {type(tensor_desc).__name__}")
        if len(extents) > _trt.Dims.MAX_DIMS:
            raise ValueError(f"a Shape has at most {_trt.Dims.MAX_DIMS} extents, not {len(extents)}")
        self._extents = [int(extent) for extent in extents]

    @property
    def is_dynamic(self):
        """Whether an extent is -1 (dynamic, or data-dependent)."""
        return any(extent == -1 for extent in self._extents)

    def numel(self):
        if self.is_dynamic:
            raise ValueError(f"{self} has a dynamic or data-dependent extent: it has no element count")
        return int(np.prod(self._extents, dtype=np.int64))

    def _bound(self, which, name):
        if not self.is_dynamic:
            raise ValueError(f"Shape.{name} is given only for a dynamic shape; {self} is not")
        if self._bounds is None:
            raise AttributeError(f"{self} has dynamic extents but no profile bounds to give as Shape.{name}")
        return self._bounds[which]

    @property
    def min(self):
        return self._bound(0, "min")

    @property
    def opt(self):
        return self._bound(1, "opt")

    @property
    def max(self):
        return self._bound(2, "max")

    def __len__(self):
        return len(self._extents)

    def __iter__(self):
        return iter(self._extents)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Shape(tuple(self._extents[index]))
        return self._extents[index]

    def __setitem__(self, index, value):
        self._extents[index] = int(value)

    def __eq__(self, other):
        if isinstance(other, (Shape, tuple, list, _trt.Dims)):
            return tuple(self._extents) == tuple(other)
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self._extents))

    def __str__(self):
        return "Shape" + str(tuple(self._extents))

    __repr__ = __str__
