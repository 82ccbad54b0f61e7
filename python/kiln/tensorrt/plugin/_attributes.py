"""A decorated plugin's attributes: the kinds TensorRT allows (int, float, bool, str, bytes, and 1-D numpy arrays
annotated ``numpy.typing.NDArray[dtype]``), checked when the plugin is used and carried in the plan as plugin
fields, one field per attribute under the attribute's name."""

import typing

import numpy as np
import numpy.typing as npt

import kiln.tensorrt as _trt

_FieldType = _trt.PluginFieldType

# The field type each array element type is stored as; bool arrays travel as INT8 and are read back as bool.
_ARRAY_FIELD_TYPES = {
    np.dtype(np.int8): _FieldType.INT8,
    np.dtype(np.int16): _FieldType.INT16,
    np.dtype(np.int32): _FieldType.INT32,
    np.dtype(np.int64): _FieldType.INT64,
    np.dtype(np.float16): _FieldType.FLOAT16,
    np.dtype(np.float32): _FieldType.FLOAT32,
    np.dtype(np.float64): _FieldType.FLOAT64,
    np.dtype(np.bool_): _FieldType.INT8,
}

# The field type and numpy type each scalar kind is stored as (text as UTF-8 bytes).
_SCALAR_FIELDS = {
    bool: (_FieldType.INT8, np.int8),
    int: (_FieldType.INT64, np.int64),
    float: (_FieldType.FLOAT64, np.float64),
    str: (_FieldType.CHAR, np.int8),
    bytes: (_FieldType.UNKNOWN, np.uint8),
}


class Attribute:
    """One attribute of a plugin: its name, its kind (a Python type, or a numpy dtype for arrays) and its
    default (``Attribute.NO_DEFAULT`` where the call must give it)."""

    NO_DEFAULT = object()

    def __init__(self, name, annotation, default, plugin_id):
        self.name = name
        self.array_dtype = _array_dtype(annotation)
        if self.array_dtype is None and annotation not in (int, float, bool, str, bytes):
            raise TypeError(
                f"{plugin_id}: attribute '{name}' is annotated {annotation!r}; attributes must be int, float, bool, "
                "str, bytes or numpy.typing.NDArray[dtype] of int8/16/32/64, float16/32/64 or bool"
            )
        self.kind = annotation
        self.default = default

    def describe(self):
        return f"NDArray[{self.array_dtype}]" if self.array_dtype is not None else self.kind.__name__

    def check(self, value, plugin_id):
        """The value in its canonical form (a Python scalar, or a 1-D array); TypeError if it is of the wrong kind."""
        wrong = TypeError(
            f"{plugin_id}: attribute '{self.name}' must be {self.describe()}, not {type(value).__name__}"
        )
        if self.array_dtype is not None:
            if not isinstance(value, np.ndarray) or value.dtype != self.array_dtype:
                raise wrong
            if value.ndim != 1:
                raise TypeError(f"{plugin_id}: attribute '{self.name}' must be a 1-D array, not {value.ndim}-D")
            return np.ascontiguousarray(value)
        if self.kind is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise wrong
            return bool(value)
        if self.kind is int:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise wrong
            return int(value)
        if self.kind is float:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise wrong
            return float(value)
        if not isinstance(value, self.kind):
            raise wrong
        return value

    @property
    def field_type(self):
        """The PluginFieldType of this attribute's field."""
        if self.array_dtype is not None:
            return _ARRAY_FIELD_TYPES[self.array_dtype]
        return _SCALAR_FIELDS[self.kind][0]

    def field(self, value):
        """The plugin field that carries `value` (in its canonical form) in the plan."""
        if self.array_dtype is not None:
            data = value.astype(np.int8) if self.array_dtype == np.bool_ else value
        elif self.kind is str:
            data = np.frombuffer(value.encode("utf-8"), np.int8).copy()
        elif self.kind is bytes:
            data = np.frombuffer(value, np.uint8).copy()
        else:
            data = np.array([value], _SCALAR_FIELDS[self.kind][1])
        return _trt.PluginField(self.name, data, self.field_type)

    def from_field(self, data):
        """The value a field's data (a numpy array, as a creator receives it) carries."""
        data = np.asarray(data)
        if self.array_dtype is not None:
            if data.dtype == self.array_dtype:
                return data
            if data.dtype in (np.int8, np.uint8) and self.array_dtype != np.bool_:
                return data.view(self.array_dtype)  # raw bytes
            # Another element type (ONNX gives ints as INT32 and floats as FLOAT32 fields): converted by value.
            return data.astype(self.array_dtype)
        if self.kind in (bool, int, float):
            if data.size != 1:
                raise ValueError(f"field '{self.name}' holds {data.size} values, not 1")
            return self.kind(data.reshape(-1)[0])
        raw = data.view(np.uint8).tobytes()
        return raw.decode("utf-8") if self.kind is str else raw


def _array_dtype(annotation):
    """The element type of an ``NDArray[dtype]`` annotation, or None for any other annotation."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is np.ndarray:  # ndarray[shape, dtype[element]]
        element = typing.get_args(args[1])[0] if len(args) == 2 and typing.get_args(args[1]) else None
    elif origin is npt.NDArray and len(args) == 1:  # on Python 3.12+, numpy's NDArray is a type alias: NDArray[element]
        element = args[0]
    else:
        return None
    if element is None:  # np.dtype(None) would be float64
        return None
    try:
        dtype = np.dtype(element)
    except TypeError:
        return None
    return dtype if dtype in _ARRAY_FIELD_TYPES else None
