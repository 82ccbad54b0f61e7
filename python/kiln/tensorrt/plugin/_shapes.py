"""Symbolic integers of ``tensorrt.plugin``: ``SymInt32`` (a scalar, as an ahead-of-time kernel's arguments and
launch parameters are), ``ShapeExpr`` (one dimension; a SymInt32), ``SizeTensorShapeExpr`` (a data-dependent
extent), and their sequences ``SymExprs``, ``SymIntExprs`` and ``ShapeExprs`` (a tensor's shape).

An expression is evaluated in one of three modes, set by the call in progress on the thread (``shape_call``):

- While Kiln asks for the output shapes, every dimension is an expression of Kiln's ``IExprBuilder`` and arithmetic
  builds new ones (``+ - * //``, ``cdiv``, ``max``, ``min``, ``==`` and ``<``).
- While Kiln asks only for the output types, the dimensions are "fake", as TensorRT calls them: arithmetic on them
  works and gives fakes, but their values cannot be read.
- While an ahead-of-time implementation describes its kernel's launch, dimensions are recorded as formulas of the
  plugin's tensor extents (``_formula.Formula``), which the plan stores and a run evaluates with the real extents.

Constants stay Python integers until they meet another kind of expression, so arithmetic on constants alone works in
every mode.
"""

import builtins
import threading

import kiln.tensorrt as _trt

from ._formula import Formula

_Op = _trt.DimensionOperation

# The expression builder of the shape call in progress on this thread: an IExprBuilder, RECORD, or None (fake).
_call = threading.local()

RECORD = "record"  # the builder value that makes arithmetic record formulas


class shape_call:
    """Context of one call of a plugin's function: within it, arithmetic builds expressions with `builder` (an
    IExprBuilder), records formulas (RECORD) or gives fakes (None)."""

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


def _floor_div(a, b):
    if b == 0:
        raise ZeroDivisionError("division of a symbolic integer by zero")
    return a // b


def _ceil_div(a, b):
    return -_floor_div(-a, b)


# What each operation computes on integers (the constant folding, and a formula's evaluation).
FOLD = {
    _Op.SUM: lambda a, b: a + b,
    _Op.SUB: lambda a, b: a - b,
    _Op.PROD: lambda a, b: a * b,
    _Op.FLOOR_DIV: _floor_div,
    _Op.CEIL_DIV: _ceil_div,
    _Op.MAX: builtins.max,
    _Op.MIN: builtins.min,
    _Op.EQUAL: lambda a, b: int(a == b),
    _Op.LESS: lambda a, b: int(a < b),
}


class SymExpr:
    """The base of TensorRT's symbolic expressions (``SymIntExpr`` and its kinds)."""

    __slots__ = ()


class SymIntExpr(SymExpr):
    """A symbolic integer: a constant, an expression of Kiln's shape calculation, a recorded formula, or a fake."""

    __slots__ = ("_constant", "_expr", "_formula")

    def __init__(self, value=None):
        self._constant = None
        self._expr = None
        self._formula = None
        if isinstance(value, SymIntExpr):
            if isinstance(value, SizeTensorShapeExpr):
                self._expr = value._dimension_expr() if _builder() not in (None, RECORD) else None
            else:
                self._constant, self._expr, self._formula = value._constant, value._expr, value._formula
        elif isinstance(value, _trt.IDimensionExpr):
            self._expr = value
        elif isinstance(value, Formula):
            self._formula = value
        elif isinstance(value, (bool, float)):
            raise TypeError(f"{type(self).__name__}: {type(value).__name__} is not an integer")
        elif isinstance(value, int) or hasattr(value, "__index__"):
            self._constant = value.__index__()
        elif value is not None:
            raise TypeError(f"{type(self).__name__}: {type(value).__name__} is neither an int nor a symbolic "
                            "expression")

    @property
    def is_fake(self):
        return self._constant is None and self._expr is None and self._formula is None

    @property
    def is_size_tensor(self):
        return False

    @property
    def is_constant(self):
        if self._constant is not None:
            return True
        if self._formula is not None:
            return False
        if self._expr is None:
            raise RuntimeError("a fake ShapeExpr (outside the output shape calculation) has no value to inspect")
        return self._expr.is_constant()

    def constant_value(self):
        if not self.is_constant:
            raise RuntimeError(f"{type(self).__name__}.constant_value: the expression is not a build-time constant")
        return self._constant if self._constant is not None else self._expr.get_constant_value()

    def _dimension_expr(self):
        """This integer as Kiln's IDimensionExpr; only while Kiln asks for shapes."""
        if self._expr is not None:
            return self._expr
        builder = _builder()
        if self._constant is None or builder in (None, RECORD):
            raise RuntimeError("a fake ShapeExpr cannot become an output dimension")
        return builder.constant(self._constant)

    def _as_formula(self):
        """This integer as a Formula of the plugin's tensor extents; only while an aot_impl describes its launch."""
        if self._formula is not None:
            return self._formula
        if self._constant is not None:
            return Formula.constant(self._constant)
        raise RuntimeError("this expression is not a formula of the plugin's tensor extents (made outside aot_impl?)")

    def _result(self, value):
        return type(self)(value) if not isinstance(self, SizeTensorShapeExpr) else ShapeExpr(value)

    def _combine(self, other, operation, swap=False):
        other = other if isinstance(other, SymIntExpr) else ShapeExpr(other)
        if isinstance(self, SizeTensorShapeExpr) or isinstance(other, SizeTensorShapeExpr):
            raise ValueError("arithmetic on a size tensor's expression is not allowed (as in TensorRT)")
        first, second = (other, self) if swap else (self, other)
        if first._constant is not None and second._constant is not None:
            return self._result(FOLD[operation](first._constant, second._constant))
        builder = _builder()
        if builder is None or first.is_fake or second.is_fake:
            return self._result(None)
        if builder is RECORD:
            return self._result(Formula.operation(operation, first._as_formula(), second._as_formula()))
        return self._result(builder.operation(operation, first._dimension_expr(), second._dimension_expr()))

    def __add__(self, other):
        return self._combine(other, _Op.SUM)

    def __radd__(self, other):
        return self._combine(other, _Op.SUM, swap=True)

    def __sub__(self, other):
        return self._combine(other, _Op.SUB)

    def __rsub__(self, other):
        return self._combine(other, _Op.SUB, swap=True)

    def __mul__(self, other):
        return self._combine(other, _Op.PROD)

    def __rmul__(self, other):
        return self._combine(other, _Op.PROD, swap=True)

    def __floordiv__(self, other):
        return self._combine(other, _Op.FLOOR_DIV)

    def __rfloordiv__(self, other):
        return self._combine(other, _Op.FLOOR_DIV, swap=True)

    def __eq__(self, other):
        if not isinstance(other, (SymIntExpr, int)) or isinstance(other, bool):
            return NotImplemented
        return self._combine(other, _Op.EQUAL)

    def __lt__(self, other):
        return self._combine(other, _Op.LESS)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        if self.is_constant:
            return bool(self.constant_value())
        raise ValueError("the truth of a symbolic expression is known only when it is a build-time constant")

    def __int__(self):
        return self.constant_value()

    def __index__(self):
        return self.constant_value()

    def __repr__(self):
        name = type(self).__name__
        if self._constant is not None:
            return f"{name}({self._constant})"
        if self._formula is not None:
            return f"{name}({self._formula})"
        if self._expr is None:
            return f"{name}(fake)"
        return f"{name}({self._expr.get_constant_value()})" if self._expr.is_constant() else f"{name}(?)"


class SymInt32(SymIntExpr):
    """A symbolic 32-bit integer: an ahead-of-time kernel's scalar argument or launch parameter. Calling it gives
    the expression it holds (a constant, a Kiln IDimensionExpr or a recorded formula)."""

    __slots__ = ()

    def __call__(self):
        if self._formula is not None:
            return self._formula
        return self._constant if self._constant is not None else self._expr


class ShapeExpr(SymInt32):
    """One dimension of a tensor's shape."""

    __slots__ = ()


class SizeTensorShapeExpr(ShapeExpr):
    """The extent a size tensor holds (``SizeTensorDesc.expr()``): an output dimension known only once the plugin
    ran. It may only be used as a dimension as it is, as in TensorRT: arithmetic on it raises."""

    __slots__ = ("_size_tensor",)

    def __init__(self, size_tensor_desc):
        super().__init__()
        self._size_tensor = size_tensor_desc

    @property
    def is_size_tensor(self):
        return True

    @property
    def is_fake(self):
        return self._size_tensor.opt.is_fake

    @property
    def is_constant(self):
        if self.is_fake:
            raise RuntimeError("a fake ShapeExpr (outside the output shape calculation) has no value to inspect")
        return False

    def _dimension_expr(self):
        return self._size_tensor._declared_expr()

    def _as_formula(self):
        raise ValueError("a size tensor's extent has no formula: ahead-of-time plugins cannot have data-dependent "
                         "output shapes in Kiln")

    def __repr__(self):
        return f"SizeTensorShapeExpr(output {self._size_tensor.index})"


def _floor_div_check(first, second, name):
    if not isinstance(first, SymIntExpr) and not isinstance(second, SymIntExpr):
        raise ValueError(f"tensorrt.plugin.{name}: at least one operand must be a ShapeExpr (both are ints)")


def cdiv(first, second):
    """The ceiling of first / second, symbolically."""
    _floor_div_check(first, second, "cdiv")
    first = first if isinstance(first, SymIntExpr) else ShapeExpr(first)
    return first._combine(second, _Op.CEIL_DIV)


def max(first, second):  # noqa: A001 (TensorRT's name in tensorrt.plugin)
    """The larger of two dimensions, symbolically."""
    _floor_div_check(first, second, "max")
    first = first if isinstance(first, SymIntExpr) else ShapeExpr(first)
    return first._combine(second, _Op.MAX)


def min(first, second):  # noqa: A001 (TensorRT's name in tensorrt.plugin)
    """The smaller of two dimensions, symbolically."""
    _floor_div_check(first, second, "min")
    first = first if isinstance(first, SymIntExpr) else ShapeExpr(first)
    return first._combine(second, _Op.MIN)


class SymExprs:
    """A sequence of symbolic integers that can be indexed, sliced, iterated and changed in place; its length is
    fixed. ``SymExprs(n)`` holds n fakes; ``SymExprs.from_tuple`` takes ints and expressions."""

    _element = SymInt32

    def __init__(self, length, _is_dummy=False):
        if isinstance(length, int):
            self._exprs = [self._element() for _ in range(length)]
        else:
            self._exprs = [self._convert(value) for value in length]

    @classmethod
    def _convert(cls, value):
        if isinstance(value, cls._element):
            return value
        if isinstance(value, SymIntExpr) or value is None or isinstance(value, (Formula, _trt.IDimensionExpr)):
            return cls._element(value)
        if isinstance(value, (bool, float)) or not isinstance(value, int):
            raise ValueError(f"{cls.__name__}: {value!r} is neither an int nor a symbolic expression")
        return cls._element(value)

    @classmethod
    def from_tuple(cls, exprs):
        return cls(list(exprs))

    def __len__(self):
        return len(self._exprs)

    def __iter__(self):
        return iter(self._exprs)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(self._exprs[index])
        return self._exprs[index]

    def __setitem__(self, index, value):
        self._exprs[index] = self._convert(value)

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(repr(expr) for expr in self._exprs) + ")"


class SymIntExprs(SymExprs):
    """A sequence of SymInt32: an ahead-of-time kernel's scalar arguments."""


class ShapeExprs(SymExprs):
    """A tensor's shape: a sequence of ShapeExpr."""

    _element = ShapeExpr

    @classmethod
    def _convert(cls, value):
        if isinstance(value, ShapeExpr):
            return value
        return super()._convert(value)

    def numel(self):
        """The number of elements, as one expression."""
        count = ShapeExpr(1)
        for dim in self._exprs:
            count = count * dim
        return count

    @property
    def ndim(self):
        return len(self._exprs)

    def _dims_exprs(self, what):
        """Kiln's DimsExprs for this shape (while Kiln asks for shapes); `what` names it in errors."""
        try:
            return _trt.DimsExprs([dim._dimension_expr() for dim in self._exprs])
        except RuntimeError as error:
            raise RuntimeError(f"{what}: {error}") from None


def as_shape_exprs(value):
    """ShapeExprs from ShapeExprs or any sequence of ints and ShapeExpr."""
    if isinstance(value, ShapeExprs):
        return value
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"a shape must be ShapeExprs or a sequence of ints and ShapeExpr, not {type(value).__name__}")
    return ShapeExprs(list(value))
