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

from ._plugin import PluginFunctionError
from ._registry import PluginDef, add_plugin, autotune, impl, op, register
from ._shapes import ShapeExpr, ShapeExprs, cdiv, max, min  # noqa: A004 (TensorRT's names)
from ._tensors import Tensor, TensorDesc, from_shape_expr

__all__ = [
    "PluginDef",
    "PluginFunctionError",
    "ShapeExpr",
    "ShapeExprs",
    "Tensor",
    "TensorDesc",
    "add_plugin",
    "autotune",
    "cdiv",
    "from_shape_expr",
    "impl",
    "max",
    "min",
    "op",
    "register",
]
