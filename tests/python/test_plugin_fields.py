"""PluginField.data as TensorRT gives it: a 1-D numpy array of the field's type holding `size` elements, whatever
buffer the field was made from (bytes included), int8 for UNKNOWN and CHAR, empty for a field without data, and
AttributeError for the types numpy has no dtype for."""

import numpy as np
import pytest

import kiln.tensorrt as trt


def test_data_is_a_numpy_array_of_the_fields_type():
    pads = trt.PluginField("pads", np.array([[1, 2], [3, 4]], np.int32), trt.PluginFieldType.INT32)
    assert pads.size == 4
    data = pads.data
    assert isinstance(data, np.ndarray) and data.dtype == np.int32 and data.tolist() == [1, 2, 3, 4]

    raw = trt.PluginField("blob", b"\x01\xff\x7f", trt.PluginFieldType.UNKNOWN)
    assert raw.data.dtype == np.int8 and raw.data.tolist() == [1, -1, 127]
    text = trt.PluginField("name", b"relu", trt.PluginFieldType.CHAR)
    assert text.data.dtype == np.int8 and text.data.tobytes() == b"relu"
    # Bytes read as the field's type.
    scale = trt.PluginField("scale", np.array([0.5, -2.0], np.float32).tobytes(), trt.PluginFieldType.FLOAT32)
    assert scale.size == 2 and scale.data.dtype == np.float32 and scale.data.tolist() == [0.5, -2.0]
    for dtype, field_type in [
        (np.int8, trt.PluginFieldType.INT8),
        (np.int16, trt.PluginFieldType.INT16),
        (np.int64, trt.PluginFieldType.INT64),
        (np.float16, trt.PluginFieldType.FLOAT16),
        (np.float64, trt.PluginFieldType.FLOAT64),
    ]:
        values = np.array([1, -3, 7], dtype)
        data = trt.PluginField("v", values, field_type).data
        assert data.dtype == dtype and data.tolist() == values.tolist()


def test_data_is_a_copy_and_an_empty_field_gives_an_empty_array():
    values = np.array([1.0, 2.0], np.float32)
    field = trt.PluginField("v", values, trt.PluginFieldType.FLOAT32)
    copy = field.data
    copy[0] = 99.0
    assert field.data.tolist() == [1.0, 2.0]
    empty = trt.PluginField("nothing")
    assert isinstance(empty.data, np.ndarray) and empty.data.size == 0


def test_types_numpy_lacks_raise_attribute_error():
    for field_type in [trt.PluginFieldType.BF16, trt.PluginFieldType.DIMS, trt.PluginFieldType.FP8]:
        field = trt.PluginField("v", np.zeros(4, np.uint8), field_type)
        with pytest.raises(AttributeError, match="numpy has no type for"):
            field.data
