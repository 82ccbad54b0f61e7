"""The IPluginV3 and IPluginCreatorV3One behind every decorated plugin: Kiln's Python plugin bridge calls these, and
they call the plugin's ``@register`` function (output types and shapes), its ``@autotune`` function (the type and
format combinations and tactics it offers), and its ``@impl`` function (to run) or its ``@aot_impl`` function (the
kernel the plan carries, ``_aot.py``).

An exception in any of them leaves as a ``PluginFunctionError`` saying which function of which plugin raised what;
the bridge then fails the call with an error naming the plugin (``add_plugin`` returns None, the build or load
returns None, or ``execute_async_v3`` returns False) and the logger gets the message."""

import numpy as _np

import kiln.tensorrt as _trt

from . import _aot
from ._descs import TensorDesc
from ._errors import PluginFunctionError, call_user_function
from ._layout import OutputLayout, describe_outputs, input_descs
from ._shape import Shape
from ._shapes import shape_call
from ._tensors import Tensor

PLUGIN_VERSION = "1"

# Fields Kiln's ONNX parser fills for a creator that names them: the node's input ranks, and the node's `aot`.
INPUT_RANKS_FIELD = "__kiln_input_ranks"
AOT_FIELD = "aot"
# The plan field of the tactic the plugin was built with (where not the default, 0).
TACTIC_FIELD = "__kiln_tactic"

# TensorRT's Python API gives aliased I/O through IPluginV3OneBuildV2 (get_aliased_input); where Kiln's bridge has
# it, decorated plugins use it; where Kiln gives an aliased output memory of its own, OutputLayout.alias_inputs copies
# the input there first.
_BuildBase = getattr(_trt, "IPluginV3OneBuildV2", _trt.IPluginV3OneBuild)


class DecoratedPlugin(_trt.IPluginV3, _trt.IPluginV3OneCore, _BuildBase, _trt.IPluginV3OneRuntime):
    """One instance of a decorated plugin with its attribute values. `input_types` and `input_ranks` are what the
    network gives it (known when it is added; in a plugin made by its creator, the ranks only where the ONNX parser
    gave them). `aot` says whether it runs the @aot_impl kernel rather than the @impl function."""

    def __init__(self, plugin_def, attributes, input_types=None, input_ranks=None, aot=False):
        _trt.IPluginV3.__init__(self)
        _trt.IPluginV3OneCore.__init__(self)
        _BuildBase.__init__(self)
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
        self.aot = aot
        self.layout = None  # OutputLayout: aliased inputs and data-dependent axes of the outputs
        self.combinations = None  # {(types, formats): [tactics]} from @autotune, or None for the default one
        self.current = None  # (types, formats) configure_plugin chose
        self.tactic = 0
        self.kernels = _aot.KernelStore()

    def get_capability_interface(self, type):
        return self

    def clone(self):
        copy = DecoratedPlugin(self.plugin_def, self.attributes, self.input_types, self.input_ranks, self.aot)
        for name in ("output_types", "layout", "combinations", "current", "tactic"):
            setattr(copy, name, getattr(self, name))
        copy.kernels = self.kernels.copy()
        return copy

    # ---- build ----

    def get_output_data_types(self, input_types):
        self.input_types = list(input_types)
        ranks = self.input_ranks
        if ranks is None:
            raise PluginFunctionError(
                f"{self.plugin_def.plugin_id}: the ranks of its inputs are unknown when its output types are asked; "
                "a plugin made by its creator needs them first (Kiln's ONNX parser gives them)")
        with shape_call(None):  # fake shapes: only the types are wanted
            descs = input_descs(ranks, input_types)
            outputs = describe_outputs(self.plugin_def, descs, self.attributes)
        self.layout = OutputLayout(outputs, descs)
        self.output_types = [output.dtype for output in outputs]
        return self.output_types

    def get_output_shapes(self, inputs, shape_inputs, expr_builder):
        plugin_def = self.plugin_def
        if len(shape_inputs) != 0:
            raise PluginFunctionError(f"{plugin_def.plugin_id}: decorated plugins take no shape inputs")
        types = self.input_types or [None] * len(inputs)
        self.input_ranks = [len(dims) for dims in inputs]
        with shape_call(expr_builder):
            descs = input_descs([[dims[i] for i in range(len(dims))] for dims in inputs], types)
            outputs = describe_outputs(plugin_def, descs, self.attributes, wants_types=False)
            return [output.shape_expr._dims_exprs(f"output {index} of {plugin_def.plugin_id}")
                    for index, output in enumerate(outputs)]

    def get_aliased_input(self, output_index):
        return self._layout().aliased[output_index]

    def supports_format_combination(self, pos, in_out, num_inputs):
        desc = in_out[pos].desc
        if self.plugin_def.autotune_function is None:
            # One combination, as a decorated plugin without @autotune has in TensorRT: linear tensors, the inputs of
            # the network's types and the outputs of the types @register gave.
            if desc.format != _trt.TensorFormat.LINEAR:
                return False
            expected = self.input_types if pos < num_inputs else self.output_types
            index = pos if pos < num_inputs else pos - num_inputs
            return expected is None or desc.type == expected[index]
        if self.combinations is None:
            self.combinations = self._autotune(in_out, num_inputs)
        chosen = [(entry.desc.type, entry.desc.format) for entry in in_out[: pos + 1]]
        return any(all((types[i], formats[i]) == chosen[i] for i in range(pos + 1))
                   for types, formats in self.combinations)

    def _autotune(self, in_out, num_inputs):
        """Calls @autotune with the tensors' descriptions: {(types, formats): [tactics]} in the order it gave."""
        plugin_def = self.plugin_def
        descs = []
        for index, entry in enumerate(in_out):
            if index < num_inputs:
                dtype = self.input_types[index] if self.input_types else entry.desc.type
            else:
                dtype = self.output_types[index - num_inputs] if self.output_types else entry.desc.type
            desc = TensorDesc([None] * len(entry.desc.dims), dtype, entry.desc.format, entry.desc.scale)
            desc.shape = Shape(entry)
            descs.append(desc._freeze())
        attributes = [self.attributes[name] for name in plugin_def.autotune_attributes]
        with shape_call(None):
            returned = call_user_function(plugin_def, "@autotune", plugin_def.autotune_function,
                                          *descs[:num_inputs], *attributes, tuple(descs[num_inputs:]))
        return plugin_def.check_combinations(returned, len(in_out))

    def configure_plugin(self, inputs, outputs):
        self.current = (tuple(entry.desc.type for entry in list(inputs) + list(outputs)),
                        tuple(entry.desc.format for entry in list(inputs) + list(outputs)))
        # Until the builder picks one with set_tactic, the combination's first tactic (or the default, 0).
        tactics = self.get_valid_tactics()
        if self.tactic not in tactics:
            self.tactic = tactics[0] if tactics else 0

    def get_valid_tactics(self):
        if self.combinations is None or self.current is None:
            return []
        return list(self.combinations.get(self.current, []))

    def set_tactic(self, tactic):
        self.tactic = int(tactic)

    # ---- runtime ----

    def on_shape_change(self, inputs, outputs):
        pass

    def enqueue_host(self, input_desc, output_desc, inputs, outputs, workspace):
        """Kiln's CPU backend: host memory, and stream 0 for the implementation."""
        self._run(input_desc, output_desc, inputs, outputs, 0, on_device=False)

    def enqueue(self, input_desc, output_desc, inputs, outputs, workspace, stream):
        """The CUDA backend: device memory and the CUDA stream's handle."""
        self._run(input_desc, output_desc, inputs, outputs, stream, on_device=True)

    def _layout(self, input_desc=None):
        """What the register function says of the outputs (computed again, with fake shapes, in a plugin made from
        a plan, which is never asked for its output types)."""
        if self.layout is None:
            if input_desc is None:
                raise PluginFunctionError(f"{self.plugin_def.plugin_id}: its outputs are not described yet")
            with shape_call(None):
                descs = input_descs([len(desc.dims) for desc in input_desc], [desc.type for desc in input_desc])
                self.layout = OutputLayout(describe_outputs(self.plugin_def, descs, self.attributes), descs)
        return self.layout

    def _run(self, input_desc, output_desc, inputs, outputs, stream, on_device):
        plugin_def = self.plugin_def
        layout = self._layout(input_desc)
        inputs = layout.alias_inputs(list(inputs), list(outputs), input_desc, on_device, stream)
        if self.aot:
            return _aot.launch(self, input_desc, output_desc, inputs, outputs, stream, on_device)
        if plugin_def.impl_function is None:
            hint = " (add it with aot=True to run its @aot_impl kernel)" if plugin_def.aot_impl_function else ""
            raise PluginFunctionError(f"{plugin_def.plugin_id} has no @tensorrt.plugin.impl function{hint}")

        def tensor(address, desc, axes=()):
            shape = [-1 if axis in axes else extent for axis, extent in enumerate(desc.dims)]
            return Tensor(address, shape, desc.type, desc.format, on_device, stream if on_device else None,
                          desc.scale, capacity=_trt.volume(desc.dims))

        input_tensors = [tensor(address, desc) for address, desc in zip(inputs, input_desc)]
        output_tensors = [tensor(address, desc, layout.data_dependent[index])
                          for index, (address, desc) in enumerate(zip(outputs, output_desc))]
        for index, source in enumerate(layout.aliased):
            if source >= 0:
                output_tensors[index]._aliased_to = input_tensors[source]
                input_tensors[source]._aliased_to = output_tensors[index]
        attributes = {name: self.attributes[name] for name in plugin_def.impl_attributes}
        if plugin_def.impl_takes_tactic:
            attributes["tactic"] = self.tactic
        call_user_function(plugin_def, "@impl", plugin_def.impl_function, *input_tensors,
                           outputs=tuple(output_tensors), stream=stream, **attributes)

    def attach_to_context(self, context):
        return self.clone()

    def get_fields_to_serialize(self):
        definitions = self.plugin_def.attributes
        fields = [definitions[name].field(value) for name, value in self.attributes.items()]
        if self.tactic != 0:
            fields.append(_trt.PluginField(TACTIC_FIELD, _np.array([self.tactic], _np.int32),
                                           _trt.PluginFieldType.INT32))
        if self.aot:
            fields.extend(_aot.fields(self))
        return _trt.PluginFieldCollection(fields)


class DecoratedPluginCreator(_trt.IPluginCreatorV3One):
    """The registry's creator of a decorated plugin: when a plan is loaded, it reads the attributes (and an
    ahead-of-time plugin's kernel) back from the fields and makes the plugin; Kiln's ONNX parser makes one from a
    node's attributes."""

    def __init__(self, plugin_def):
        _trt.IPluginCreatorV3One.__init__(self)
        self.plugin_def = plugin_def
        self.name = plugin_def.name
        self.plugin_version = PLUGIN_VERSION
        self.plugin_namespace = plugin_def.namespace
        self.refresh_field_names()

    def refresh_field_names(self):
        """Sets field_names again (an @aot_impl defined after the creator adds a field)."""
        self.field_names = _trt.PluginFieldCollection(self._wanted_fields())

    def _wanted_fields(self):
        """The attributes; what Kiln's ONNX parser passes besides: the node's input ranks (the register function
        needs them before any shape is known) and, for a plugin with an @aot_impl, the node's `aot` choice."""
        empty = _np.zeros(0, _np.int8)
        wanted = [_trt.PluginField(name, empty, attribute.field_type)
                  for name, attribute in self.plugin_def.attributes.items()]
        wanted.append(_trt.PluginField(INPUT_RANKS_FIELD, empty, _trt.PluginFieldType.INT32))
        if self.plugin_def.aot_impl_function is not None:
            wanted.append(_trt.PluginField(AOT_FIELD, empty, _trt.PluginFieldType.INT32))
        return wanted

    def _choose_aot(self, fields, kernels, phase):
        """Whether the plugin runs its @aot_impl kernel: in a loaded plan, whether the plan holds one; otherwise the
        ONNX node's `aot`, or the only implementation the plugin has."""
        plugin_def = self.plugin_def
        if kernels is not None or phase == _trt.TensorRTPhase.RUNTIME:
            return kernels is not None
        if AOT_FIELD in fields and plugin_def.aot_impl_function is not None:
            return bool(_np.asarray(fields[AOT_FIELD]).reshape(-1)[0])
        return plugin_def.impl_function is None and plugin_def.aot_impl_function is not None

    def create_plugin(self, name, fc, phase):
        plugin_def = self.plugin_def
        fields = {field.name: field.data for field in fc}
        attributes = {}
        for attr_name, attribute in plugin_def.attributes.items():
            if attr_name not in fields:
                if attribute.default is not attribute.NO_DEFAULT:
                    attributes[attr_name] = attribute.default
                    continue
                raise PluginFunctionError(f"{plugin_def.plugin_id}: no field gives attribute '{attr_name}'")
            try:
                attributes[attr_name] = attribute.from_field(fields[attr_name])
            except ValueError as error:
                raise PluginFunctionError(f"{plugin_def.plugin_id}: attribute '{attr_name}': {error}") from None
        kernels = _aot.KernelStore.from_fields(plugin_def, fields)
        ranks = None
        if INPUT_RANKS_FIELD in fields:
            ranks = [int(rank) for rank in _np.asarray(fields[INPUT_RANKS_FIELD]).reshape(-1)]
        plugin = DecoratedPlugin(plugin_def, attributes, input_ranks=ranks, aot=self._choose_aot(fields, kernels, phase))
        if kernels is not None:
            plugin.kernels = kernels
        if TACTIC_FIELD in fields:
            plugin.tactic = int(_np.asarray(fields[TACTIC_FIELD]).reshape(-1)[0])
        return plugin
