"""Symbolic shapes of ``tensorrt.plugin``: ``ShapeExpr`` (one dimension) and ``ShapeExprs`` (a tensor's shape).

A shape function runs in one of two modes. While Kiln asks for the output shapes, every dimension is an expression of
Kiln's ``IExprBuilder`` and arithmetic builds new ones (``+ - * //``, ``cdiv``, ``max``, ``min``). While Kiln asks
only for the output types, the dimensions are "fake", as TensorRT calls them: arithmetic on them works and gives
fakes, but their values cannot be read. Constants stay Python integers until they meet a real expression, so
arithmetic on constants alone works in both modes.
"""

import builtins
import threading

import kiln.tensorrt as _trt

_Op = _trt.DimensionOperation

# The expression builder of the shape call in progress on this thread (None outside one: fake mode).
_call = threading.local()


class shape_call:
    """Context of one shape call: within it, ShapeExpr arithmetic builds expressions with `builder`."""

    def __init__(self, builder):
        self.builder = builder

    def __enter__(self):
        self.previous = getattr(_call, "builder", None)
        _call.builder = self.builder
        return self

    def __exit__(self, *exc):
        _call.builder = self.previous
        return False


def _builder():
    return getattr(_call, "builder", None)


class ShapeExpr:
    """One dimension: a constant, an expression of Kiln's shape calculation, or a fake (outside one)."""

    __slots__ = ("_constant", "_expr")

    def __init__(self, value=None):
        self._constant = None
        self._expr = None
        if isinstance(value, ShapeExpr):
            self._constant, self._expr = value._constant, value._expr
        elif isinstance(value, _trt.IDimensionExpr):
            self._expr = value
        elif isinstance(value, int) and not isinstance(value, bool):
            self._constant = int(value)
        elif hasattr(value, "__index__") and not isinstance(value, bool):
            self._constant = value.__index__()
        elif value is not None:
            raise TypeError(f"ShapeExpr: {type(value).__name__} is neither an int nor a shape expression")

    @property
    def is_fake(self):
        return self._constant is None and self._expr is None

    @property
    def is_constant(self):
        if self._constant is not None:
            return True
        if self._expr is None:
            raise RuntimeError("a fake ShapeExpr (outside the output shape calculation) has no value to inspect")
        return self._expr.is_constant()

    def constant_value(self):
        if not self.is_constant:
            raise RuntimeError("ShapeExpr.constant_value: the dimension is not a build-time constant")
        return self._constant if self._constant is not None else self._expr.get_constant_value()

    @property
    def is_size_tensor(self):
        return False

    def dimension_expr(self):
        """This dimension as Kiln's IDimensionExpr; only within a shape call."""
        if self._expr is not None:
            return self._expr
        builder = _builder()
        if self._constant is None or builder is None:
            raise RuntimeError("a fake ShapeExpr cannot become an output dimension")
        return builder.constant(self._constant)

    def _combine(self, other, operation, fold, swap=False):
        other = _as_shape_expr(other)
        first, second = (other, self) if swap else (self, other)
        if first._constant is not None and second._constant is not None:
            return ShapeExpr(fold(first._constant, second._constant))
        builder = _builder()
        if builder is None or first.is_fake or second.is_fake:
            return ShapeExpr()
        return ShapeExpr(builder.operation(operation, first.dimension_expr(), second.dimension_expr()))

    def __add__(self, other):
        return self._combine(other, _Op.SUM, lambda a, b: a + b)

    def __radd__(self, other):
        return self._combine(other, _Op.SUM, lambda a, b: a + b, swap=True)

    def __sub__(self, other):
        return self._combine(other, _Op.SUB, lambda a, b: a - b)

    def __rsub__(self, other):
        return self._combine(other, _Op.SUB, lambda a, b: a - b, swap=True)

    def __mul__(self, other):
        return self._combine(other, _Op.PROD, lambda a, b: a * b)

    def __rmul__(self, other):
        return self._combine(other, _Op.PROD, lambda a, b: a * b, swap=True)

    def __floordiv__(self, other):
        return self._combine(other, _Op.FLOOR_DIV, _floor_div)

    def __rfloordiv__(self, other):
        return self._combine(other, _Op.FLOOR_DIV, _floor_div, swap=True)

    def __repr__(self):
        if self._constant is not None:
            return f"ShapeExpr({self._constant})"
        if self._expr is None:
            return "ShapeExpr(fake)"
        return f"ShapeExpr({self._expr.get_constant_value()})" if self._expr.is_constant() else "ShapeExpr(?)"


def _floor_div(a, b):
    if b == 0:
        raise ZeroDivisionError("ShapeExpr: division by a zero dimension")
    return a // b


def _ceil_div(a, b):
    return -_floor_div(-a, b)


def _as_shape_expr(value):
    return value if isinstance(value, ShapeExpr) else ShapeExpr(value)


def _both_ints(first, second, name):
    if not isinstance(first, ShapeExpr) and not isinstance(second, ShapeExpr):
        raise ValueError(f"tensorrt.plugin.{name}: at least one operand must be a ShapeExpr (both are ints)")


def cdiv(first, second):
    """The ceiling of first / second, symbolically."""
    _both_ints(first, second, "cdiv")
    return _as_shape_expr(first)._combine(second, _Op.CEIL_DIV, _ceil_div)


def max(first, second):  # noqa: A001 (TensorRT's name in tensorrt.plugin)
    """The larger of two dimensions, symbolically."""
    _both_ints(first, second, "max")
    return _as_shape_expr(first)._combine(second, _Op.MAX, builtins.max)


def min(first, second):  # noqa: A001 (TensorRT's name in tensorrt.plugin)
    """The smaller of two dimensions, symbolically."""
    _both_ints(first, second, "min")
    return _as_shape_expr(first)._combine(second, _Op.MIN, builtins.min)


class ShapeExprs:
    """A tensor's shape: a sequence of ShapeExpr that can be indexed, sliced, iterated and changed in place."""

    def __init__(self, length, _is_dummy=False):
        if isinstance(length, int):
            self._dims = [ShapeExpr() for _ in range(length)]
        else:
            self._dims = [_as_shape_expr(value) for value in length]

    @classmethod
    def from_tuple(cls, shape_exprs):
        return cls(list(shape_exprs))

    def numel(self):
        """The number of elements, as one expression."""
        count = ShapeExpr(1)
        for dim in self._dims:
            count = count * dim
        return count

    @property
    def ndim(self):
        return len(self._dims)

    def __len__(self):
        return len(self._dims)

    def __iter__(self):
        return iter(self._dims)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ShapeExprs(self._dims[index])
        return self._dims[index]

    def __setitem__(self, index, value):
        self._dims[index] = _as_shape_expr(value)

    def __repr__(self):
        return "ShapeExprs(" + ", ".join(repr(dim) for dim in self._dims) + ")"

    def dims_exprs(self, what):
        """Kiln's DimsExprs for this shape (within a shape call); `what` names it in errors."""
        try:
            return _trt.DimsExprs([dim.dimension_expr() for dim in self._dims])
        except RuntimeError as error:
            raise RuntimeError(f"{what}: {error}") from None


def as_shape_exprs(value):
    """ShapeExprs from ShapeExprs or any sequence of ints and ShapeExpr."""
    if isinstance(value, ShapeExprs):
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"a shape must be ShapeExprs or a sequence of ints and ShapeExpr, not {type(value).__name__}")
    return ShapeExprs(list(value))
