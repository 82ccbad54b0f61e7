"""The decorators of ``tensorrt.plugin`` (``register``, ``impl``, ``autotune``, ``aot_impl``), the plugins they
define, ``op`` (the plugins by namespace and name) and ``INetworkDefinition.add_plugin``, which adds a call of one to
a network."""

import inspect
import typing

import kiln.tensorrt as _trt

from ._attributes import Attribute
from ._autotune import AutoTuneCombination
from ._descs import TensorDesc
from ._errors import PluginFunctionError
from ._plugin import PLUGIN_VERSION, DecoratedPlugin, DecoratedPluginCreator

# The plugins this process defined, by "namespace::name".
_plugins = {}

_IMPL_ARGUMENTS = ("outputs", "stream", "tactic")
_AOT_ARGUMENTS = ("outputs", "tactic")


def _split_id(plugin_id):
    parts = plugin_id.split("::") if isinstance(plugin_id, str) else []
    if len(parts) != 2 or not all(part.isidentifier() for part in parts):
        raise ValueError(f"a plugin ID must read 'namespace::name' (two Python identifiers), not {plugin_id!r}")
    return parts


def _type_hints(function, plugin_id, decorator):
    try:
        return typing.get_type_hints(function)
    except Exception as error:  # noqa: BLE001 (an unresolvable annotation, whatever it raises)
        raise TypeError(f"@{decorator}({plugin_id!r}): cannot resolve the annotations of "
                        f"{function.__name__}: {error}") from None


def _output_count(annotation, plugin_id):
    """How many outputs a register function's return annotation declares."""
    if annotation is TensorDesc:
        return 1
    if typing.get_origin(annotation) is tuple:
        items = typing.get_args(annotation)
        if items and Ellipsis not in items and all(item is TensorDesc for item in items):
            return len(items)
    raise TypeError(f"@register({plugin_id!r}): the return annotation must be TensorDesc or Tuple[TensorDesc, ...] "
                    f"with one TensorDesc per output, not {annotation!r}")


class PluginDef:
    """A plugin defined with ``@register``: its inputs and attributes (from the function's signature), its
    functions, and the creator Kiln's registry finds it by. Calling it, as ``op.namespace.name(...)``, gives what
    ``INetworkDefinition.add_plugin`` adds."""

    def __init__(self, plugin_id, shape_function):
        self.plugin_id = plugin_id
        self.namespace, self.name = _split_id(plugin_id)
        self.shape_function = shape_function
        self.impl_function = None
        self.impl_attributes = ()
        self.impl_takes_tactic = False
        self.autotune_function = None
        self.autotune_attributes = ()
        self.aot_impl_function = None
        self.aot_impl_attributes = ()
        self.input_names = []
        self.attributes = {}
        hints = _type_hints(shape_function, plugin_id, "register")
        for parameter in inspect.signature(shape_function).parameters.values():
            self._add_parameter(parameter, hints)
        if "return" not in hints:
            raise TypeError(f"@register({plugin_id!r}): {shape_function.__name__} needs a return annotation")
        self.num_outputs = _output_count(hints["return"], plugin_id)
        self.creator = None

    def _add_parameter(self, parameter, hints):
        where = f"@register({self.plugin_id!r}): parameter '{parameter.name}'"
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"{where}: variable argument lists are not supported")
        if parameter.name not in hints:
            raise TypeError(f"{where} needs a type annotation (TensorDesc for an input, or an attribute's type)")
        if hints[parameter.name] is TensorDesc:
            if self.attributes:
                raise TypeError(f"{where}: inputs (TensorDesc) must come before the attributes")
            self.input_names.append(parameter.name)
            return
        default = Attribute.NO_DEFAULT if parameter.default is parameter.empty else parameter.default
        self.attributes[parameter.name] = Attribute(parameter.name, hints[parameter.name], default, self.plugin_id)

    def register_creator(self):
        """Registers the creator with Kiln's plugin registry (once)."""
        if self.creator is None:
            creator = DecoratedPluginCreator(self)
            if not _trt.get_plugin_registry().register_creator(creator, self.namespace):
                raise ValueError(f"{self.plugin_id}: the plugin registry refused its creator (one named "
                                 f"{self.name!r}, version {PLUGIN_VERSION}, is already registered there?)")
            self.creator = creator

    def _split_parameters(self, function, decorator, allowed, required):
        """The names `function` takes after the inputs, checked: attributes of the plugin and the `allowed` others,
        with every `required` one."""
        names = list(inspect.signature(function).parameters)
        if len(names) < len(self.input_names):
            raise TypeError(f"@{decorator}({self.plugin_id!r}): {function.__name__} must take the "
                            f"{len(self.input_names)} inputs first")
        rest = names[len(self.input_names):]
        unknown = [name for name in rest if name not in self.attributes and name not in allowed]
        missing = [name for name in required if name not in rest]
        if unknown or missing:
            problem = f"takes {unknown}, which @register does not declare" if unknown else f"lacks {missing}"
            raise TypeError(f"@{decorator}({self.plugin_id!r}): {function.__name__} {problem}; it takes the inputs, "
                            f"then any of the attributes, then {', '.join(allowed)}")
        return rest

    def set_impl(self, function):
        rest = self._split_parameters(function, "impl", _IMPL_ARGUMENTS, ("outputs", "stream"))
        self.impl_function = function
        self.impl_attributes = tuple(name for name in rest if name in self.attributes)
        self.impl_takes_tactic = "tactic" in rest

    def set_aot_impl(self, function):
        rest = self._split_parameters(function, "aot_impl", _AOT_ARGUMENTS, _AOT_ARGUMENTS)
        self.aot_impl_function = function
        self.aot_impl_attributes = tuple(name for name in rest if name in self.attributes)
        if self.creator is not None:
            self.creator.refresh_field_names()  # the ONNX parser may now pass a node's `aot`

    def set_autotune(self, function):
        names = list(inspect.signature(function).parameters)
        middle = names[len(self.input_names):-1]
        if len(names) < len(self.input_names) + 1 or any(name not in self.attributes for name in middle):
            raise TypeError(f"@autotune({self.plugin_id!r}): {function.__name__} must take the "
                            f"{len(self.input_names)} inputs, then any of the attributes, then the outputs")
        self.autotune_function = function
        self.autotune_attributes = tuple(middle)

    def check_combinations(self, returned, io_count):
        """What @autotune returned, as {(types, formats): [tactics]} in its order; PluginFunctionError if it is not
        a list of AutoTuneCombination for this many I/O."""
        where = f"the @autotune function of {self.plugin_id}"
        if not isinstance(returned, (list, tuple)) or not all(isinstance(c, AutoTuneCombination) for c in returned):
            raise PluginFunctionError(f"{where} returned {type(returned).__name__}, not a list of "
                                      "AutoTuneCombination")
        combinations = {}
        for combination in returned:
            try:
                expanded = combination._combinations()
            except ValueError as error:
                raise PluginFunctionError(f"{where}: {error}") from None
            for types, formats, tactics in expanded:
                if len(types) != io_count:
                    raise PluginFunctionError(f"{where} returned {combination!r}, which gives {len(types)} I/O "
                                              f"types; the plugin has {io_count} inputs and outputs")
                known = combinations.setdefault((types, formats), [])
                known.extend(tactic for tactic in tactics if tactic not in known)
        return combinations

    def __call__(self, *inputs, **attributes):
        return PluginCall(self, inputs, attributes)

    def __repr__(self):
        return f"<tensorrt.plugin {self.plugin_id}: inputs {self.input_names}, attributes {list(self.attributes)}>"


class PluginCall:
    """``op.namespace.name(inputs..., attribute=value...)``: a plugin, its input tensors and its attribute values,
    checked against the plugin's signature; ``network.add_plugin(call)`` adds it."""

    def __init__(self, plugin_def, inputs, attributes):
        plugin_id = plugin_def.plugin_id
        if len(inputs) != len(plugin_def.input_names):
            raise TypeError(f"{plugin_id} takes {len(plugin_def.input_names)} input tensors "
                            f"({', '.join(plugin_def.input_names)}), not {len(inputs)}")
        for name, tensor in zip(plugin_def.input_names, inputs):
            if not isinstance(tensor, _trt.ITensor):
                raise TypeError(f"{plugin_id}: input '{name}' must be an ITensor, not {type(tensor).__name__}")
        unknown = sorted(set(attributes) - set(plugin_def.attributes))
        if unknown:
            raise TypeError(f"{plugin_id} has no attribute {', '.join(map(repr, unknown))}")
        self.plugin_def = plugin_def
        self.inputs = list(inputs)
        self.attributes = {}
        for name, attribute in plugin_def.attributes.items():
            value = attributes.get(name, attribute.default)
            if value is Attribute.NO_DEFAULT:
                raise TypeError(f"{plugin_id}: attribute '{name}' was not given and has no default")
            self.attributes[name] = attribute.check(value, plugin_id)

    def plugin(self, aot=False):
        """A new plugin object for this call, of the @aot_impl kernel or the @impl function."""
        return DecoratedPlugin(self.plugin_def, self.attributes, [tensor.dtype for tensor in self.inputs],
                               [len(tensor.shape) for tensor in self.inputs], aot)


def register(plugin_id, lazy_register=False):
    """Decorates a plugin's shape function ``(inp0: TensorDesc, ..., attr0: type, ...) -> TensorDesc`` (or a tuple
    of them): defines the plugin ``namespace::name`` and registers its creator, at once or (lazy_register) when
    the plugin is first added to a network."""
    _split_id(plugin_id)

    def decorate(function):
        if plugin_id in _plugins:
            raise ValueError(f"the plugin {plugin_id} is already registered")
        plugin_def = PluginDef(plugin_id, function)
        if not lazy_register:
            plugin_def.register_creator()
        _plugins[plugin_id] = plugin_def
        return function

    return decorate


def _registered(plugin_id, decorator):
    if plugin_id not in _plugins:
        raise ValueError(f"@{decorator}({plugin_id!r}): no plugin of that ID; define it with @register first")
    return _plugins[plugin_id]


def impl(plugin_id):
    """Decorates a plugin's implementation ``(inp0, ..., attr0, ..., outputs, stream, tactic=None)``; on Kiln's
    CPU backend it gets Tensor objects viewing host memory (``tensor.numpy()``) and stream 0."""

    def decorate(function):
        _registered(plugin_id, "impl").set_impl(function)
        return function

    return decorate


def autotune(plugin_id):
    """Decorates a plugin's autotune function ``(inp0, ..., attributes..., outputs) -> List[AutoTuneCombination]``:
    the type and format combinations of the plugin's I/O and their custom tactics. Kiln's builder offers the plugin
    only those, and the tactic it picks reaches the implementation as ``tactic``."""

    def decorate(function):
        _registered(plugin_id, "autotune").set_autotune(function)
        return function

    return decorate


def aot_impl(plugin_id):
    """Decorates a plugin's ahead-of-time implementation ``(inp0, ..., attributes..., outputs, tactic) ->
    (kernel name, PTX or cubin, KernelLaunchParams, SymExprs)``: called when the plan is built, for the kernel the
    plan carries (``add_plugin(..., aot=True)``)."""

    def decorate(function):
        _registered(plugin_id, "aot_impl").set_aot_impl(function)
        return function

    return decorate


class _Namespace:
    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        plugin_id = f"{self._namespace}::{name}"
        if plugin_id not in _plugins:
            raise AttributeError(f"no plugin {plugin_id} is registered with tensorrt.plugin")
        return _plugins[plugin_id]


class _Ops:
    """``op.namespace.name``: the registered plugins."""

    def __getattr__(self, namespace):
        if namespace.startswith("__"):
            raise AttributeError(namespace)
        return _Namespace(namespace)


op = _Ops()


def add_plugin(network, call, aot=False):
    """``INetworkDefinition.add_plugin``: adds ``op.namespace.name(inputs..., attributes...)`` as a plugin layer
    (an IPluginV3Layer) that runs the plugin's @impl function or, with `aot`, its @aot_impl kernel; None when Kiln
    refuses it, the reason in the logger, as ``add_plugin_v3``."""
    if not isinstance(call, PluginCall):
        raise TypeError("add_plugin takes tensorrt.plugin.op.<namespace>.<name>(inputs..., attributes...), not "
                        f"{type(call).__name__}")
    plugin_def = call.plugin_def
    if aot and plugin_def.aot_impl_function is None:
        raise ValueError(f"add_plugin(..., aot=True): {plugin_def.plugin_id} has no @tensorrt.plugin.aot_impl")
    plugin_def.register_creator()
    return network.add_plugin_v3(call.inputs, [], call.plugin(bool(aot)))
