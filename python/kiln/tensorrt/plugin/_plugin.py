"""The IPluginV3 and IPluginCreatorV3One behind every decorated plugin: Kiln's Python plugin bridge calls these, and
they call the plugin's ``@register`` function (for output types and shapes) and its ``@impl`` function (to run).

An exception in either function leaves as a ``PluginFunctionError`` saying which function of which plugin raised
what; the bridge then fails the call with an error naming the plugin (``add_plugin`` returns None, the build or load
returns None, or ``execute_async_v3`` returns False) and the logger gets the message."""

import numpy as _np

import kiln.tensorrt as _trt

from ._shapes import ShapeExprs, shape_call
from ._tensors import Tensor, TensorDesc

PLUGIN_VERSION = "1"


class PluginFunctionError(RuntimeError):
    """A decorated plugin's function raised or returned something unusable."""


def _call_user_function(plugin_def, role, function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except PluginFunctionError:
        raise
    except Exception as error:  # noqa: BLE001 (any exception of the user's function is reported, with its type)
        raise PluginFunctionError(
            f"the {role} function of {plugin_def.plugin_id} raised {type(error).__name__}: {error}"
        ) from error


class DecoratedPlugin(_trt.IPluginV3, _trt.IPluginV3OneCore, _trt.IPluginV3OneBuild, _trt.IPluginV3OneRuntime):
    """One instance of a decorated plugin with its attribute values. `input_types` and `input_ranks` are what the
    network gives it (known when it is added; None in a plugin made when a plan is loaded)."""

    def __init__(self, plugin_def, attributes, input_types=None, input_ranks=None):
        _trt.IPluginV3.__init__(self)
        _trt.IPluginV3OneCore.__init__(self)
        _trt.IPluginV3OneBuild.__init__(self)
        _trt.IPluginV3OneRuntime.__init__(self)
        self.plugin_def = plugin_def
        self.attributes = attributes
        self.plugin_name = plugin_def.name
        self.plugin_version = PLUGIN_VERSION
        self.plugin_namespace = plugin_def.namespace
        self.num_outputs = plugin_def.num_outputs
        self.input_types = None if input_types is None else list(input_types)
        self.input_ranks = None if input_ranks is None else list(input_ranks)
        self.output_types = None

    def get_capability_interface(self, type):
        return self

    def clone(self):
        copy = DecoratedPlugin(self.plugin_def, self.attributes, self.input_types, self.input_ranks)
        copy.output_types = self.output_types
        return copy

    # ---- build ----

    def _describe_outputs(self, input_descs, wants_types=True):
        """The register function's outputs for these input descriptions, checked: a list of TensorDesc. Where only
        the shapes are wanted (`wants_types` False) an output's data type may be unset: a plugin made when a plan is
        loaded does not know its inputs' types, yet the loading engine checks its output shapes against the plan."""
        plugin_def = self.plugin_def
        returned = _call_user_function(plugin_def, "@register", plugin_def.shape_function, *input_descs,
                                       **self.attributes)
        outputs = [returned] if isinstance(returned, TensorDesc) else returned
        if not isinstance(outputs, (list, tuple)) or not all(isinstance(o, TensorDesc) for o in outputs):
            raise PluginFunctionError(
                f"the @register function of {plugin_def.plugin_id} returned {type(returned).__name__}, not a "
                "TensorDesc or a tuple of TensorDesc"
            )
        if len(outputs) != plugin_def.num_outputs:
            raise PluginFunctionError(
                f"the @register function of {plugin_def.plugin_id} returned {len(outputs)} outputs; its return "
                f"annotation declares {plugin_def.num_outputs}"
            )
        for index, output in enumerate(outputs):
            if (wants_types and output.dtype is None) or not output.has_shape:
                raise PluginFunctionError(
                    f"the @register function of {plugin_def.plugin_id} left the "
                    f"{'data type' if output.dtype is None else 'shape'} of output {index} unset"
                )
        return outputs

    def get_output_data_types(self, input_types):
        self.input_types = list(input_types)
        ranks = self.input_ranks or [0] * len(input_types)
        descs = [TensorDesc(ShapeExprs(rank), dtype) for rank, dtype in zip(ranks, input_types)]
        with shape_call(None):  # fake shapes: only the types are wanted
            self.output_types = [output.dtype for output in self._describe_outputs(descs)]
        return self.output_types

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        types = self.input_types or [None] * len(inputs)
        self.input_ranks = [len(dims) for dims in inputs]
        with shape_call(expr_builder):
            descs = [
                TensorDesc(ShapeExprs([dims[i] for i in range(len(dims))]), dtype) for dims, dtype in zip(inputs, types)
            ]
            outputs = self._describe_outputs(descs, wants_types=False)
            return [
                output.shape_expr.dims_exprs(f"output {index} of {self.plugin_def.plugin_id}")
                for index, output in enumerate(outputs)
            ]

    def supports_format_combination(self, pos, in_out, num_inputs):
        # One combination, as a decorated plugin without @autotune has in TensorRT: linear tensors, the inputs of the
        # network's types and the outputs of the types @register gave.
        desc = in_out[pos].desc
        if desc.format != _trt.TensorFormat.LINEAR:
            return False
        expected = self.input_types if pos < num_inputs else self.output_types
        index = pos if pos < num_inputs else pos - num_inputs
        return expected is None or desc.type == expected[index]

    def configure_plugin(self, inputs, outputs):
        pass

    # ---- runtime ----

    def on_shape_change(self, inputs, outputs):
        pass

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        """Kiln's CPU backend: host memory, and stream 0 for the implementation."""
        self._run(input_desc, output_desc, inputs, outputs, 0, on_device=False)

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        """The CUDA backend: device memory and the CUDA stream's handle."""
        self._run(input_desc, output_desc, inputs, outputs, stream, on_device=True)

    def _run(self, input_desc, output_desc, inputs, outputs, stream, on_device):
        plugin_def = self.plugin_def
        if plugin_def.impl_function is None:
            raise PluginFunctionError(f"{plugin_def.plugin_id} has no @tensorrt.plugin.impl function")

        def tensors(addresses, descs):
            return [Tensor(address, desc.dims, desc.type, desc.format, on_device, stream if on_device else None)
                    for address, desc in zip(addresses, descs)]

        attributes = {name: self.attributes[name] for name in plugin_def.impl_attributes}
        if plugin_def.impl_takes_tactic:
            attributes["tactic"] = 0
        _call_user_function(plugin_def, "@impl", plugin_def.impl_function, *tensors(inputs, input_desc),
                            outputs=tuple(tensors(outputs, output_desc)), stream=stream, **attributes)

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        definitions = self.plugin_def.attributes
        return _trt.PluginFieldCollection(
            [definitions[name].field(value) for name, value in self.attributes.items()]
        )


class DecoratedPluginCreator(_trt.IPluginCreatorV3One):
    """The registry's creator of a decorated plugin: when a plan is loaded, it reads the attributes back from the
    fields and makes the plugin."""

    def __init__(self, plugin_def):
        _trt.IPluginCreatorV3One.__init__(self)
        self.plugin_def = plugin_def
        self.name = plugin_def.name
        self.plugin_version = PLUGIN_VERSION
        self.plugin_namespace = plugin_def.namespace
        self.field_names = _trt.PluginFieldCollection(
            [_trt.PluginField(name, _np.zeros(0, _np.int8), attribute.field_type)
             for name, attribute in plugin_def.attributes.items()]
        )

    def create_plugin(self, name, fc, phase):
        plugin_def = self.plugin_def
        fields = {field.name: field.data for field in fc}
        attributes = {}
        for attr_name, attribute in plugin_def.attributes.items():
            if attr_name not in fields:
                raise PluginFunctionError(f"{plugin_def.plugin_id}: the plan has no field for attribute '{attr_name}'")
            try:
                attributes[attr_name] = attribute.from_field(fields[attr_name])
            except ValueError as error:
                raise PluginFunctionError(f"{plugin_def.plugin_id}: attribute '{attr_name}': {error}") from None
        return DecoratedPlugin(plugin_def, attributes)
