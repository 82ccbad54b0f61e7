"""Ahead-of-time decorated plugins (``@aot_impl``, ``add_plugin(..., aot=True)``): the plugin's kernel is compiled
when the plan is built (PTX or a cubin, from Triton or any compiler) and the plan carries it, with its launch
parameters and scalar arguments as formulas of the plugin's tensor extents (``_formula.py``). A run evaluates them
with the real extents and launches the kernel on the plugin's CUDA stream, with the input addresses, the scalar
arguments and the output addresses as its parameters; @aot_impl is not called again then.

Kiln's CPU backend cannot run PTX: there a run of an ahead-of-time plugin fails, saying so."""

import numpy as np

from kiln._tensorrt import _cuda_launch_kernel, _cuda_load_kernel

import kiln.tensorrt as _trt

from ._descs import TensorDesc
from ._errors import PluginFunctionError, call_user_function
from ._formula import Formula
from ._layout import describe_outputs, input_descs
from ._shapes import RECORD, SymExprs, SymInt32, SymIntExpr, shape_call

_LAUNCH_NAMES = ("grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "shared_mem")
_DEFAULTS = {"grid_x": 1, "grid_y": 1, "grid_z": 1, "block_x": 1, "block_y": 1, "block_z": 1, "shared_mem": 0}

# The fields of the plan that hold an ahead-of-time plugin's kernel (beside its attributes).
KERNEL_FIELD = "__kiln_aot_kernel"
IMAGE_FIELD = "__kiln_aot_image"
LAUNCH_FIELD = "__kiln_aot_launch"
ARGS_FIELD = "__kiln_aot_args"

# Kernels loaded in this process, by (name, image): loading PTX compiles it, once.
_loaded = {}


class KernelLaunchParams:
    """An ahead-of-time kernel's grid and block extents and dynamic shared memory, each an int or a SymInt32 (an
    expression of the plugin's tensor extents)."""

    def __init__(self, grid_x=1, grid_y=1, grid_z=1, block_x=1, block_y=1, block_z=1, shared_mem=0):
        for name, value in zip(_LAUNCH_NAMES, (grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_mem)):
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if name not in _LAUNCH_NAMES:
            raise AttributeError(f"KernelLaunchParams has no parameter {name!r}; it has {', '.join(_LAUNCH_NAMES)}")
        object.__setattr__(self, name, SymInt32(value))

    def __repr__(self):
        return "KernelLaunchParams(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in _LAUNCH_NAMES) + ")"


class Kernel:
    """One compiled kernel: its name, its image (PTX or cubin bytes) and the formulas of its launch parameters
    (grid, block, shared memory) and scalar arguments."""

    def __init__(self, name, image, launch, args):
        self.name = name
        self.image = image
        self.launch = list(launch)
        self.args = list(args)

    def values(self, shapes):
        """(launch parameters, scalar arguments) for the tensors' extents `shapes` (inputs, then outputs)."""
        return [f.evaluate(shapes) for f in self.launch], [f.evaluate(shapes) for f in self.args]

    def fields(self):
        return [
            _trt.PluginField(KERNEL_FIELD, _as_array(self.name.encode()), _trt.PluginFieldType.CHAR),
            _trt.PluginField(IMAGE_FIELD, _as_array(self.image), _trt.PluginFieldType.UNKNOWN),
            _trt.PluginField(LAUNCH_FIELD, _as_array(";".join(f.text() for f in self.launch).encode()),
                             _trt.PluginFieldType.CHAR),
            _trt.PluginField(ARGS_FIELD, _as_array(";".join(f.text() for f in self.args).encode()),
                             _trt.PluginFieldType.CHAR),
        ]


def _as_array(data):
    return np.frombuffer(data, np.uint8).copy()


def _text(data):
    return np.asarray(data).view(np.uint8).tobytes()


class KernelStore:
    """A plugin's kernels: those compiled while the plan is built, by (types, formats, tactic), or the one a loaded
    plan carries (`planned`)."""

    def __init__(self, planned=None):
        self.compiled = {}
        self.planned = planned

    def copy(self):
        copy = KernelStore(self.planned)
        copy.compiled = dict(self.compiled)
        return copy

    @classmethod
    def from_fields(cls, plugin_def, fields):
        """The store of a plan's fields, or None where they hold no kernel (a plugin of its @impl)."""
        present = [name for name in (KERNEL_FIELD, IMAGE_FIELD, LAUNCH_FIELD, ARGS_FIELD) if name in fields]
        if not present:
            return None
        if len(present) != 4:
            raise PluginFunctionError(f"{plugin_def.plugin_id}: the plan holds only part of its kernel ({present})")
        try:
            launch = [Formula.parse(text) for text in _text(fields[LAUNCH_FIELD]).decode().split(";")]
            arg_text = _text(fields[ARGS_FIELD]).decode()
            args = [Formula.parse(text) for text in arg_text.split(";")] if arg_text else []
        except ValueError as error:
            raise PluginFunctionError(f"{plugin_def.plugin_id}: the plan's kernel formulas: {error}") from None
        if len(launch) != len(_LAUNCH_NAMES):
            raise PluginFunctionError(f"{plugin_def.plugin_id}: the plan's kernel has {len(launch)} launch "
                                      f"parameters, not {len(_LAUNCH_NAMES)}")
        name = _text(fields[KERNEL_FIELD]).decode()
        return cls(Kernel(name, _text(fields[IMAGE_FIELD]), launch, args))


def _current(plugin):
    if plugin.current is None:
        raise PluginFunctionError(f"{plugin.plugin_def.plugin_id}: its kernel is wanted before its types and "
                                  "formats were configured")
    return plugin.current


def _describe(plugin):
    """The descriptions aot_impl gets: extents as formulas, the configured types and formats."""
    types, formats = _current(plugin)
    ranks = plugin.input_ranks
    count = len(ranks)
    shapes = [[Formula.extent(i, axis) for axis in range(rank)] for i, rank in enumerate(ranks)]
    inputs = input_descs(shapes, types[:count])
    output_ranks = [len(output.shape_expr) for output in describe_outputs(plugin.plugin_def, inputs,
                                                                          plugin.attributes)]
    shapes += [[Formula.extent(count + o, axis) for axis in range(rank)] for o, rank in enumerate(output_ranks)]
    described = [TensorDesc(shape, dtype, format)._freeze() for shape, dtype, format in zip(shapes, types, formats)]
    return described[:count], tuple(described[count:])


def _formula_of(value, what, plugin_id):
    try:
        return value._as_formula() if isinstance(value, SymIntExpr) else Formula.constant(int(value))
    except (RuntimeError, ValueError, TypeError) as error:
        raise PluginFunctionError(f"the @aot_impl function of {plugin_id}: {what}: {error}") from None


def compile_kernel(plugin):
    """Calls @aot_impl for the configured types, formats and tactic: the Kernel it describes, checked."""
    plugin_def = plugin.plugin_def
    plugin_id = plugin_def.plugin_id
    attributes = {name: plugin.attributes[name] for name in plugin_def.aot_impl_attributes}
    with shape_call(RECORD):
        inputs, outputs = _describe(plugin)
        returned = call_user_function(plugin_def, "@aot_impl", plugin_def.aot_impl_function, *inputs,
                                      outputs=outputs, tactic=plugin.tactic, **attributes)
        if not isinstance(returned, (tuple, list)) or len(returned) != 4:
            raise PluginFunctionError(f"the @aot_impl function of {plugin_id} must return (kernel name, PTX or "
                                      "cubin, KernelLaunchParams, SymExprs)")
        name, image, launch, args = returned
        if not isinstance(name, (str, bytes)) or not isinstance(image, (str, bytes)):
            raise PluginFunctionError(f"the @aot_impl function of {plugin_id}: the kernel name and image must be "
                                      "str or bytes")
        if not isinstance(launch, KernelLaunchParams) or not isinstance(args, SymExprs):
            raise PluginFunctionError(f"the @aot_impl function of {plugin_id} must return a KernelLaunchParams "
                                      "and a SymExprs (SymIntExprs) as its third and fourth values")
        launch_formulas = [_formula_of(getattr(launch, n), f"launch parameter {n}", plugin_id) for n in _LAUNCH_NAMES]
        arg_formulas = [_formula_of(arg, f"argument {i}", plugin_id) for i, arg in enumerate(args)]
    name = name.decode() if isinstance(name, bytes) else name
    image = image.encode() if isinstance(image, str) else bytes(image)
    return Kernel(name, image, launch_formulas, arg_formulas)


def _kernel(plugin):
    """The kernel of this plugin now: the plan's, or the one compiled for the configured combination and tactic."""
    store = plugin.kernels
    if store.planned is not None:
        return store.planned
    key = (_current(plugin), plugin.tactic)
    if key not in store.compiled:
        store.compiled[key] = compile_kernel(plugin)
    return store.compiled[key]


def fields(plugin):
    """The plan fields of the kernel the plugin runs."""
    return _kernel(plugin).fields()


def launch(plugin, input_desc, output_desc, inputs, outputs, stream, on_device):
    """Runs the kernel on the plugin's stream (the CUDA backend only)."""
    plugin_id = plugin.plugin_def.plugin_id
    if not on_device:
        raise PluginFunctionError(f"{plugin_id} was added with aot=True: its kernel is PTX (or a cubin), which "
                                  "Kiln's CPU backend cannot run; add it with aot=False to run its @impl there")
    kernel = _kernel(plugin)
    shapes = [tuple(desc.dims) for desc in list(input_desc) + list(output_desc)]
    try:
        params, args = kernel.values(shapes)
    except (ValueError, ZeroDivisionError) as error:
        raise PluginFunctionError(f"{plugin_id}: its kernel's launch formulas: {error}") from None
    if 0 in params[0:6]:
        return  # an empty grid or block: nothing to compute (CUDA refuses such a launch)
    key = (kernel.name, kernel.image)
    if key not in _loaded:
        _loaded[key] = _cuda_load_kernel(kernel.image, kernel.name)
    _cuda_launch_kernel(_loaded[key], params[0:3], params[3:6], params[6], stream, list(inputs), args,
                        list(outputs))
