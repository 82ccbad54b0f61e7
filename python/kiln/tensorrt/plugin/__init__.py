"""TensorRT's decorator API for plugins written in Python (TensorRT 10.6+), on Kiln: ``import kiln.tensorrt.plugin
as trtp`` (or ``import tensorrt.plugin as trtp`` through Kiln's alias).

    @trtp.register("my::scaled_add")
    def scaled_add_desc(a: trtp.TensorDesc, b: trtp.TensorDesc, alpha: float) -> trtp.TensorDesc:
        return a.like()

    @trtp.impl("my::scaled_add")
    def scaled_add_impl(a, b, alpha: float, outputs, stream):
        outputs[0].numpy()[...] = a.numpy() + alpha * b.numpy()   # Kiln's CPU backend: host memory

    layer = network.add_plugin(trtp.op.my.scaled_add(x, y, alpha=0.5))

python/README.md says what is covered and what is not.
"""

from ._aot import KernelLaunchParams
from ._autotune import AutoTuneCombination
from ._descs import SizeTensorDesc, TensorDesc, from_shape_expr, size_tensor
from ._errors import PluginFunctionError
from ._registry import PluginDef, add_plugin, aot_impl, autotune, impl, op, register
from ._shape import Shape
from ._shapes import (  # noqa: A004 (max and min are TensorRT's names)
    ShapeExpr,
    ShapeExprs,
    SizeTensorShapeExpr,
    SymExpr,
    SymExprs,
    SymInt32,
    SymIntExpr,
    SymIntExprs,
    cdiv,
    max,
    min,
)
from ._tensors import Tensor

__all__ = [
    "AutoTuneCombination",
    "KernelLaunchParams",
    "PluginDef",
    "PluginFunctionError",
    "Shape",
    "ShapeExpr",
    "ShapeExprs",
    "SizeTensorDesc",
    "SizeTensorShapeExpr",
    "SymExpr",
    "SymExprs",
    "SymInt32",
    "SymIntExpr",
    "SymIntExprs",
    "Tensor",
    "TensorDesc",
    "add_plugin",
    "aot_impl",
    "autotune",
    "cdiv",
    "from_shape_expr",
    "impl",
    "max",
    "min",
    "op",
    "register",
    "size_tensor",
]
