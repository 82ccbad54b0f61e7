"""Tensor descriptions of ``tensorrt.plugin``: ``TensorDesc`` (what a register, autotune or aot_impl function gets
and returns: a symbolic shape, a data type, and in autotune the concrete shape and format) and ``SizeTensorDesc``
(an output that holds a data-dependent extent, made by ``size_tensor``)."""

import kiln.tensorrt as _trt

from ._shapes import ShapeExpr, ShapeExprs, SizeTensorShapeExpr, _builder, as_shape_exprs


class TensorDesc:
    """A tensor's symbolic shape (``shape_expr``), ``dtype``, and where known its concrete ``shape``, ``format`` and
    ``scale``; never its data. The descriptions of a plugin's inputs are immutable: ``like()`` gives a changeable
    copy, ``aliased()`` an output that reuses the input's memory."""

    def __init__(self, shape_expr=None, dtype=None, format=None, scale=None):
        self._immutable = False
        self.shape_expr = shape_expr
        self.dtype = dtype
        self._shape = None
        self.format = format
        self.scale = scale
        self._aliased_to = None

    def __setattr__(self, name, value):
        if getattr(self, "_immutable", False) and name != "_immutable":
            raise ValueError("a plugin input's TensorDesc cannot be changed: change a copy made with like()")
        super().__setattr__(name, value)

    def _freeze(self):
        self._immutable = True
        return self

    @property
    def shape_expr(self):
        return self._shape_expr

    @shape_expr.setter
    def shape_expr(self, value):
        self._shape_expr = None if value is None else as_shape_exprs(value)

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, value):
        if value is not None and not isinstance(value, _trt.DataType):
            raise TypeError(f"TensorDesc: dtype must be a tensorrt.DataType, not {type(value).__name__}")
        self._dtype = value

    @property
    def has_shape_expr(self):
        return self._shape_expr is not None

    @property
    def has_shape(self):
        """Whether the concrete shape is known (in an autotune function)."""
        return self._shape is not None

    def _concrete(self, name):
        if self._shape is None:
            raise ValueError(f"TensorDesc.{name} is known only where has_shape is True (in an autotune function)")

    @property
    def shape(self):
        self._concrete("shape")
        return self._shape

    @shape.setter
    def shape(self, value):
        self._shape = value

    @property
    def is_dynamic(self):
        self._concrete("is_dynamic")
        return self._shape.is_dynamic

    def numel(self):
        self._concrete("numel")
        return self._shape.numel()

    @property
    def ndim(self):
        if self._shape_expr is None:
            raise ValueError("this TensorDesc has no shape")
        return len(self._shape_expr)

    @property
    def is_size_tensor(self):
        return False

    def _copy(self):
        copy = TensorDesc(None if self._shape_expr is None else ShapeExprs(list(self._shape_expr)), self._dtype,
                          self.format, self.scale)
        copy._shape = self._shape
        return copy

    def like(self):
        """A changeable description with this one's shape, type and format."""
        return self._copy()

    def aliased(self):
        """An output description like this input's that reuses its memory: the implementation gets the same buffer
        for both and writes the result in place (TensorRT's aliased plugin I/O)."""
        copy = self._copy()
        copy._aliased_to = self
        return copy._freeze()

    def get_aliased(self):
        """The description this one is aliased to, or None."""
        return self._aliased_to

    @property
    def is_aliased(self):
        return self._aliased_to is not None

    def __repr__(self):
        shape = repr(self._shape_expr) if self._shape_expr is not None else "no shape"
        return f"TensorDesc({shape}, dtype={self._dtype})"


class SizeTensorDesc(TensorDesc):
    """An output that holds, as a 0-D INT32 (or, once its dtype is set so, INT64) tensor, the extent of a
    data-dependent dimension of another output: ``expr()`` is that extent, to put into the other output's shape;
    ``opt`` the extent to tune for and ``upper_bound`` the most it can be (memory is planned for it)."""

    def __init__(self, opt, upper_bound):
        super().__init__(ShapeExprs(0), _trt.int32)
        self._opt = opt if isinstance(opt, ShapeExpr) else ShapeExpr(opt)
        self._upper_bound = upper_bound if isinstance(upper_bound, ShapeExpr) else ShapeExpr(upper_bound)
        self._index = None
        self._declared = None  # (builder, IDimensionExpr): declared once per shape call
        self._expr = SizeTensorShapeExpr(self)

    @property
    def is_size_tensor(self):
        return True

    @property
    def opt(self):
        return self._opt

    @property
    def upper_bound(self):
        return self._upper_bound

    @property
    def index(self):
        """The output this size tensor is (set once the register function returned)."""
        return self._index

    def expr(self):
        return self._expr

    def _declared_expr(self):
        """The size tensor's extent as Kiln's IDimensionExpr, declared once (IExprBuilder.declare_size_tensor)."""
        builder = _builder()
        if self._index is None or builder is None:
            raise RuntimeError("a size tensor's extent can become a dimension only while Kiln asks for the output "
                               "shapes, as an output of the plugin's register function")
        if self._declared is None or self._declared[0] is not builder:
            expr = builder.declare_size_tensor(self._index, self._opt._dimension_expr(),
                                               self._upper_bound._dimension_expr())
            if expr is None:
                raise RuntimeError(f"Kiln refused the size tensor of output {self._index}")
            object.__setattr__(self, "_declared", (builder, expr))
        return self._declared[1]

    def _copy(self):
        raise ValueError("a SizeTensorDesc describes its own output: return it, do not copy it")

    def __repr__(self):
        return f"SizeTensorDesc(output {self._index}, dtype={self._dtype})"


def size_tensor(opt, upper_bound):
    """A size tensor output whose extent is tuned for `opt` and at most `upper_bound` (both ShapeExpr or int)."""
    return SizeTensorDesc(opt, upper_bound)


def from_shape_expr(shape_expr, dtype):
    """A TensorDesc of the given shape (ShapeExprs, or a sequence of ints and ShapeExpr) and data type."""
    return TensorDesc(shape_expr, dtype)
