"""``tensorrt.plugin.AutoTuneCombination``: what an ``@autotune`` function returns, the data types and formats a
plugin's inputs and outputs may take together and the custom tactics it has for them.

Types and formats are written per I/O position (inputs, then outputs), comma-separated: ``"FP32|FP16, FP32|FP16"``.
At one position, ``A|B`` options are dependent: every ``|`` position takes its k-th option together (so these two
positions are both FP32 or both FP16), and all of them have the same number of options; ``A*B`` options are
independent: each combines with every choice of the others. A single name is fixed. Type names are ``FP32``,
``FP16`` and the other ``tensorrt.DataType`` names (``BF16``, ``INT8``, ``INT32``, ``INT64``, ``BOOL``, ...);
format names the ``tensorrt.TensorFormat`` names (``LINEAR``, ``HWC``, ...)."""

import itertools

import kiln.tensorrt as _trt

_TYPE_ALIASES = {"FP32": _trt.DataType.FLOAT, "FP16": _trt.DataType.HALF}


def _data_type(name):
    if name in _TYPE_ALIASES:
        return _TYPE_ALIASES[name]
    value = getattr(_trt.DataType, name, None) if name.isupper() else None
    if not isinstance(value, _trt.DataType):
        raise ValueError(f"AutoTuneCombination: {name!r} is not a data type (FP32, FP16, BF16, INT8, INT32, ...)")
    return value


def _tensor_format(name):
    value = getattr(_trt.TensorFormat, name, None) if name.isupper() else None
    if not isinstance(value, _trt.TensorFormat):
        raise ValueError(f"AutoTuneCombination: {name!r} is not a tensor format (LINEAR, HWC, CHW4, ...)")
    return value


def _expand(entries, convert, what):
    """Every choice the per-position `entries` allow (see the module's text), converted: a list of tuples."""
    dependent = []  # (position, options)
    independent = []
    fixed = {}
    for position, entry in enumerate(entries):
        if entry is None:
            raise ValueError(f"AutoTuneCombination: the {what} of I/O position {position} is not given")
        if "|" in entry and "*" in entry:
            raise ValueError(f"AutoTuneCombination: {what} {entry!r} mixes '|' and '*'")
        if "|" in entry:
            dependent.append((position, [convert(option.strip()) for option in entry.split("|")]))
        elif "*" in entry:
            independent.append((position, [convert(option.strip()) for option in entry.split("*")]))
        else:
            fixed[position] = convert(entry.strip())
    counts = {len(options) for _, options in dependent}
    if len(counts) > 1:
        raise ValueError(f"AutoTuneCombination: the dependent (|) {what} {entries} have different numbers of options")
    choices = []
    for k in range(counts.pop() if counts else 1):
        for picks in itertools.product(*(options for _, options in independent)):
            chosen = dict(fixed)
            chosen.update({position: options[k] for position, options in dependent})
            chosen.update({position: pick for (position, _), pick in zip(independent, picks)})
            choices.append(tuple(chosen[position] for position in range(len(entries))))
    return choices


def _split(text):
    return [part.strip() for part in text.split(",")]


class AutoTuneCombination:
    """Type and format combinations of a plugin's I/O, and optionally custom tactics for them (positive ints: other
    ways the implementation may compute the same result, which the builder times)."""

    def __init__(self, io_types=None, layouts=None, tactics=None):
        self._types = [] if io_types is None else _split(io_types)
        if io_types is None:
            if layouts is not None:
                raise ValueError("AutoTuneCombination: layouts given without io_types")
            self._layouts = []
        else:
            layouts = _split(layouts or "LINEAR")
            if len(layouts) == 1:
                layouts = layouts * len(self._types)
            if len(layouts) != len(self._types):
                raise ValueError(f"AutoTuneCombination: {len(self._types)} I/O types but {len(layouts)} layouts")
            self._layouts = layouts
        self._tactics = None
        if tactics is not None:
            self.tactics(tactics)

    def pos(self, pos, io_types, layouts="LINEAR"):
        """Gives the types and formats of the I/O positions `pos` (an int or several)."""
        positions = [pos] if isinstance(pos, int) else list(pos)
        if not positions or any(not isinstance(p, int) or p < 0 for p in positions):
            raise ValueError(f"AutoTuneCombination.pos: {pos!r} is not a position or list of positions")
        grow = max(positions) + 1 - len(self._types)
        if grow > 0:
            self._types.extend([None] * grow)
            self._layouts.extend([None] * grow)
        for p in positions:
            if self._types[p] is not None:
                raise ValueError(f"AutoTuneCombination.pos: the types of position {p} are already given")
            self._types[p], self._layouts[p] = io_types.strip(), layouts.strip()

    def tactics(self, tactics):
        """Sets the custom tactics of these combinations (positive ints)."""
        tactics = [int(tactic) for tactic in tactics]
        if any(tactic <= 0 for tactic in tactics):
            raise ValueError(f"AutoTuneCombination: tactics must be positive integers (0 is the default), not "
                             f"{tactics}")
        self._tactics = tactics

    def _combinations(self):
        """Kiln's: every (types, formats, tactics) this object allows; types and formats are tuples per position."""
        types = _expand(self._types, _data_type, "types")
        formats = _expand(self._layouts, _tensor_format, "layouts")
        return [(t, f, tuple(self._tactics or ())) for t in types for f in formats]

    def __repr__(self):
        return f"AutoTuneCombination({', '.join(map(str, self._types))!r}, {', '.join(map(str, self._layouts))!r}, " \
               f"tactics={self._tactics})"
