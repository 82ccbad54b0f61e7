"""Indexing cases beside PyTorch: ScatterND (a copy of data, then index_put of the updates: memory-bound) and
TopkLastDim (torch.topk, with k = 10000 too)."""
import numpy as np

from plugin_case import Case, Instance, float_type, override_builtin, plugin_model, to_device
from plugin_checks import dense
from plugin_checks import topk as topk_check


def scatter_nd(rng, fp16, batch, rows, width, updated):
    """updates[b, i] lands on data[b, row(b, i)], each row at most once (ONNX leaves repeated indices undefined)."""
    dtype = float_type(fp16)
    picked = np.stack([rng.permutation(rows)[:updated] for _ in range(batch)])
    indices = np.stack([np.repeat(np.arange(batch)[:, None], updated, 1), picked], axis=-1).astype(np.int32)
    inputs = {"data": rng.standard_normal((batch, rows, width)).astype(dtype), "indices": indices,
              "updates": rng.standard_normal((batch, updated, width)).astype(dtype)}

    def peer(device):
        import torch

        t = to_device(inputs, device, ["data", "updates"])
        where = torch.from_numpy(indices.astype(np.int64)).to(device)
        batch_index, row_index = where[..., 0], where[..., 1]

        def scatter():
            out = t["data"].clone()
            out[batch_index, row_index] = t["updates"]
            return out

        return scatter

    # The least a new output tensor costs: the output written once, the updates and indices read once, and of data
    # only the rows that no update replaces (a replaced row need not be read).
    kept_rows = batch * (rows - updated)
    moved = (inputs["data"].nbytes + kept_rows * width * inputs["data"].itemsize + inputs["updates"].nbytes
             + indices.nbytes)
    model = override_builtin(plugin_model("ScatterND", "1", inputs, ["output"], {}))
    return Instance(model, inputs, f"{batch}x{rows}x{width}, {batch}x{updated} rows", peer, dense("output"),
                    bytes_moved=moved)


def topk(rng, fp16, rows, length, k):
    """The largest k of each row, in descending order."""
    inputs = {"x": rng.standard_normal((rows, length)).astype(float_type(fp16))}
    fields = {"type_id": 1 if fp16 else 0, "k": k, "is_largest": 1, "axis": -1}

    def peer(device):
        import torch

        t = to_device(inputs, device)
        return lambda: torch.topk(t["x"], k, dim=-1, largest=True, sorted=True)

    model = plugin_model("TopkLastDim", "1", inputs, ["values", "indices"], fields)
    return Instance(model, inputs, f"{rows}x{length}, k {k}", peer, topk_check("values", "indices", inputs["x"]))


CASES = [
    # (batch, rows, row length, rows replaced per batch)
    Case("ScatterND", "ScatterND", "clone + index_put", True, scatter_nd, (8, 4096, 256, 2048), (2, 10, 6, 4)),
    # (rows, row length, k): sampling over a vocabulary, then k = 10000 of 100000 (NVIDIA's TopK stops at 3840).
    Case("TopkLastDim_k50", "TopkLastDim", "torch.topk", True, topk, (64, 32000, 50), (3, 40, 5)),
    Case("TopkLastDim_k10000", "TopkLastDim", "torch.topk", True, topk, (8, 100000, 10000), (2, 300, 200)),
    # Either side of the radix top-k's switch from selecting k to sorting whole rows (at k = half the row): the
    # two times say whether that switch point is right.
    Case("TopkLastDim_k49999", "TopkLastDim", "torch.topk", True, topk, (8, 100000, 49999), (2, 300, 149)),
    Case("TopkLastDim_k50000", "TopkLastDim", "torch.topk", True, topk, (8, 100000, 50000), (2, 300, 150)),
    # Many short rows: a block per row.
    Case("TopkLastDim_rows", "TopkLastDim", "torch.topk", True, topk, (16384, 1000, 32), (40, 100, 20)),
]
