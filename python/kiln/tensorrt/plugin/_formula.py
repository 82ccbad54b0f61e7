"""Formulas of a plugin's tensor extents: what an ahead-of-time implementation's launch parameters and scalar
arguments are, recorded when the plan is built, stored in it as text, and evaluated with the real extents when the
plan runs (TensorRT keeps them as shape expressions for the same purpose).

A formula is a constant, the extent of one axis of one of the plugin's tensors (inputs first, then outputs), or a
``DimensionOperation`` of two formulas. Its text is prefix notation: ``c 4``, ``d 0 3`` (tensor 0, axis 3),
``SUM d 0 0 c 1``."""

import kiln.tensorrt as _trt

_Op = _trt.DimensionOperation
_OPERATIONS = {name: getattr(_Op, name) for name in ("SUM", "SUB", "PROD", "FLOOR_DIV", "CEIL_DIV", "MAX", "MIN",
                                                    "EQUAL", "LESS")}


class Formula:
    """One node of a formula (immutable)."""

    __slots__ = ("kind", "values", "operands")

    def __init__(self, kind, values=(), operands=()):
        self.kind = kind  # "c" (constant), "d" (extent) or an operation's name
        self.values = tuple(values)
        self.operands = tuple(operands)

    @classmethod
    def constant(cls, value):
        return cls("c", (int(value),))

    @classmethod
    def extent(cls, tensor, axis):
        return cls("d", (int(tensor), int(axis)))

    @classmethod
    def operation(cls, operation, first, second):
        return cls(operation.name, (), (first, second))

    def evaluate(self, shapes):
        """The value with `shapes` the extents of the plugin's tensors (inputs, then outputs)."""
        from ._shapes import FOLD  # the one table of what each operation computes

        if self.kind == "c":
            return self.values[0]
        if self.kind == "d":
            tensor, axis = self.values
            if tensor >= len(shapes) or axis >= len(shapes[tensor]):
                raise ValueError(f"the formula reads axis {axis} of tensor {tensor}, which the plugin does not have")
            return int(shapes[tensor][axis])
        first, second = (operand.evaluate(shapes) for operand in self.operands)
        return FOLD[_OPERATIONS[self.kind]](first, second)

    def text(self):
        """The formula in prefix notation."""
        words = []
        self._write(words)
        return " ".join(words)

    def _write(self, words):
        words.append(self.kind)
        words.extend(str(value) for value in self.values)
        for operand in self.operands:
            operand._write(words)

    @classmethod
    def parse(cls, text):
        """The formula `text()` wrote; ValueError naming what is wrong otherwise."""
        words = text.split()
        formula, used = cls._read(words, 0)
        if used != len(words):
            raise ValueError(f"the formula {text!r} has {len(words) - used} word(s) after its end")
        return formula

    @classmethod
    def _read(cls, words, at):
        if at >= len(words):
            raise ValueError("a formula ends too early")
        kind = words[at]
        try:
            if kind == "c":
                return cls.constant(int(words[at + 1])), at + 2
            if kind == "d":
                return cls.extent(int(words[at + 1]), int(words[at + 2])), at + 3
        except (IndexError, ValueError):
            raise ValueError(f"a formula's {kind!r} lacks its integer value(s)") from None
        if kind not in _OPERATIONS:
            raise ValueError(f"a formula has an unknown operation {kind!r}")
        first, at = cls._read(words, at + 1)
        second, at = cls._read(words, at)
        return cls(kind, (), (first, second)), at

    def __repr__(self):
        return self.text()
