"""What a decorated plugin's register function says of its outputs: their descriptions (checked), which input each
output aliases (``TensorDesc.aliased()``) and which output axes are data-dependent (a size tensor's extent)."""

import ctypes

from kiln._tensorrt import _cuda_copy_async

import kiln.tensorrt as _trt

from ._descs import SizeTensorDesc, TensorDesc
from ._errors import PluginFunctionError, call_user_function
from ._shapes import ShapeExprs


def input_descs(shapes, types):
    """The immutable descriptions of a plugin's inputs: each shape a rank (fake dimensions) or a list of
    dimensions (Kiln expressions, formulas or ints); types may be None where unknown."""
    descs = []
    for shape, dtype in zip(shapes, types):
        descs.append(TensorDesc(ShapeExprs(shape) if isinstance(shape, int) else ShapeExprs(list(shape)),
                                dtype)._freeze())
    return descs


def _returned_outputs(plugin_def, returned):
    outputs = [returned] if isinstance(returned, TensorDesc) else returned
    if not isinstance(outputs, (list, tuple)) or not all(isinstance(o, TensorDesc) for o in outputs):
        raise PluginFunctionError(f"the @register function of {plugin_def.plugin_id} returned "
                                  f"{type(returned).__name__}, not a TensorDesc or a tuple of TensorDesc")
    if len(outputs) != plugin_def.num_outputs:
        raise PluginFunctionError(f"the @register function of {plugin_def.plugin_id} returned {len(outputs)} "
                                  f"outputs; its return annotation declares {plugin_def.num_outputs}")
    return list(outputs)


def describe_outputs(plugin_def, inputs, attributes, wants_types=True):
    """The register function's outputs for these input descriptions, checked: a list of TensorDesc, each size
    tensor told its output index. Where only the shapes are wanted (`wants_types` False) an output's data type may be
    unset: a plugin made when a plan is loaded does not know its inputs' types, yet the loading engine checks its
    output shapes against the plan."""
    returned = call_user_function(plugin_def, "@register", plugin_def.shape_function, *inputs, **attributes)
    outputs = _returned_outputs(plugin_def, returned)
    where = f"the @register function of {plugin_def.plugin_id}"
    for index, output in enumerate(outputs):
        if (wants_types and output.dtype is None) or not output.has_shape_expr:
            unset = "data type" if output.dtype is None else "shape"
            raise PluginFunctionError(f"{where} left the {unset} of output {index} unset")
        if isinstance(output, SizeTensorDesc):
            if output.index not in (None, index):
                raise PluginFunctionError(f"{where} returned one size tensor as outputs {output.index} and {index}")
            if output.dtype not in (_trt.int32, _trt.int64, None):
                raise PluginFunctionError(f"{where} made size tensor output {index} {output.dtype}; a size tensor "
                                          "is INT32 or INT64")
            object.__setattr__(output, "_index", index)
        aliased = output.get_aliased()
        if aliased is not None and not any(aliased is desc for desc in inputs):
            raise PluginFunctionError(f"{where} made output {index} an alias of a TensorDesc that is not one of "
                                      "its inputs")
    return outputs


class OutputLayout:
    """Per output: the input it aliases (-1 for none), and the set of its data-dependent axes."""

    def __init__(self, outputs, inputs):
        self.aliased = []
        for output in outputs:
            source = output.get_aliased()
            self.aliased.append(next((i for i, desc in enumerate(inputs) if desc is source), -1))
        self.data_dependent = [
            {axis for axis, dim in enumerate(output.shape_expr) if dim.is_size_tensor} for output in outputs
        ]

    def alias_inputs(self, inputs, outputs, input_desc, on_device, stream):
        """The input addresses the implementation gets: an aliased input is its output's memory. Where Kiln gave
        the output other memory than the input's, the input is copied there first, so that the implementation's
        in-place result is the output and the input stays as it was."""
        for output, source in enumerate(self.aliased):
            if source < 0 or outputs[output] == inputs[source]:
                continue
            desc = input_desc[source]
            size = _trt.volume(desc.dims) * desc.type.itemsize
            if on_device:
                _cuda_copy_async(outputs[output], inputs[source], size, stream)
            elif size > 0:
                ctypes.memmove(outputs[output], inputs[source], size)
            inputs[source] = outputs[output]
        return inputs

