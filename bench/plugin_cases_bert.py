"""BERT plugin cases beside their PyTorch composites: CustomGeluPluginDynamic (gelu of x + bias),
CustomSkipLayerNormPluginDynamic (layer_norm of x + skip + bias), CustomEmbLayerNormPluginDynamic (three embedding
lookups summed, then layer_norm). All three are memory-bound: the rows give their bandwidth."""
import numpy as np

from plugin_case import Case, Instance, float_type, plugin_model, to_device
from plugin_checks import dense, max_diff_text

# The plugins' layer-norm epsilon (NVIDIA's kernels, and Kiln's, add FLT_EPSILON).
FLT_EPSILON = float(np.finfo(np.float32).eps)


def gelu(rng, fp16, *shape):
    """The bias runs along the last axis."""
    dtype = float_type(fp16)
    inputs = {"x": rng.standard_normal(shape).astype(dtype)}
    bias = rng.standard_normal(shape[-1]).astype(np.float32)
    fields = {"type_id": 1 if fp16 else 0, "bias": bias}

    def peer(device):
        import torch.nn.functional as F

        t = to_device({**inputs, "bias": bias.astype(dtype)}, device)
        return lambda: F.gelu(t["x"] + t["bias"], approximate="tanh")

    return Instance(plugin_model("CustomGeluPluginDynamic", "1", inputs, ["y"], fields), inputs,
                    "x".join(map(str, shape)), peer, dense("y"), bytes_moved=2 * inputs["x"].nbytes)


def skip_layer_norm(rng, fp16, length, batch, hidden):
    """The plugin's layout is [S, B, E, 1, 1]."""
    dtype = float_type(fp16)
    inputs = {name: rng.standard_normal((length, batch, hidden, 1, 1)).astype(dtype) for name in ("input", "skip")}
    weights = {name: rng.standard_normal(hidden).astype(np.float32) for name in ("gamma", "beta", "bias")}
    fields = {"type_id": 1 if fp16 else 0, "ld": hidden, **weights}

    def peer(device):
        import torch.nn.functional as F

        t = to_device({**inputs, **{k: v.astype(dtype) for k, v in weights.items()}}, device)
        x, skip = (t[k].view(length, batch, hidden) for k in ("input", "skip"))
        return lambda: F.layer_norm(x + skip + t["bias"], (hidden,), t["gamma"], t["beta"], FLT_EPSILON)

    model = plugin_model("CustomSkipLayerNormPluginDynamic", "1", inputs, ["output"], fields)
    return Instance(model, inputs, f"{length}x{batch}x{hidden}x1x1", peer, dense("output"),
                    bytes_moved=3 * inputs["input"].nbytes)


def emb_layer_norm(rng, fp16, length, batch, hidden, vocabulary, positions):
    """Two token types; each sequence has valid tokens, then padding."""
    dtype = float_type(fp16)
    valid = rng.integers(length // 2, length + 1, batch)
    inputs = {"token_id": rng.integers(0, vocabulary, (length, batch)).astype(np.int32),
              "segment_id": (np.arange(length)[:, None] >= valid[None, :] // 2).astype(np.int32),
              "input_mask": (np.arange(length)[:, None] < valid[None, :]).astype(np.int32)}
    tables = {"word": rng.normal(0, 0.05, (vocabulary, hidden)), "token_type": rng.normal(0, 0.05, (2, hidden)),
              "position": rng.normal(0, 0.05, (positions, hidden)), "gamma": rng.uniform(0.5, 1.5, hidden),
              "beta": rng.normal(0, 0.1, hidden)}
    tables = {key: value.astype(np.float32) for key, value in tables.items()}
    fields = {"output_fp16": 1 if fp16 else 0, "full_mask": 0, "mha_type_id": 1 if fp16 else 0,
              "bert_embeddings_layernorm_beta": tables["beta"], "bert_embeddings_layernorm_gamma": tables["gamma"],
              "bert_embeddings_word_embeddings": tables["word"],
              "bert_embeddings_token_type_embeddings": tables["token_type"],
              "bert_embeddings_position_embeddings": tables["position"]}

    def peer(device):
        t = to_device({**inputs, **{k: v.astype(dtype) for k, v in tables.items()}}, device)
        return lambda: embed(t, length, hidden)

    def check(kiln, peer_result):
        counts_agree = np.array_equal(kiln["maskIdx"].reshape(-1), peer_result[1].cpu().numpy().reshape(-1))
        return f"{max_diff_text(kiln['embedded_input'], peer_result[0])}; maskIdx " + (
            "same" if counts_agree else "differs")

    # The ids, the word rows looked up, the position rows once, and the output.
    moved = 3 * length * batch * 4 + length * batch * hidden * (4 + np.dtype(dtype).itemsize) + length * hidden * 4
    model = plugin_model("CustomEmbLayerNormPluginDynamic", "1", inputs, ["embedded_input", "maskIdx"], fields)
    return Instance(model, inputs, f"{length}x{batch}, E {hidden}, vocab {vocabulary}", peer, check,
                    bytes_moved=moved)


def embed(t, length, hidden):
    """BERT's embedding layer in PyTorch: word + token type + position embeddings, layer_norm; and the number of
    valid tokens per sequence (the mask is contiguous from the start)."""
    import torch.nn.functional as F

    summed = (F.embedding(t["token_id"], t["word"]) + F.embedding(t["segment_id"], t["token_type"])
              + t["position"][:length, None, :])
    return F.layer_norm(summed, (hidden,), t["gamma"], t["beta"], FLT_EPSILON), t["input_mask"].sum(0)


CASES = [
    # BERT-base's FFN (3072) and hidden size (768) at SQuAD's sequence length 384, batch 8.
    Case("CustomGelu", "CustomGeluPluginDynamic", "F.gelu(x + bias, tanh)", True, gelu, (8, 384, 3072), (2, 5, 16)),
    Case("CustomSkipLayerNorm", "CustomSkipLayerNormPluginDynamic", "F.layer_norm(x + skip + bias)", True,
         skip_layer_norm, (384, 8, 768), (5, 2, 16)),
    # (sequence, batch, hidden, vocabulary, positions): BERT-base's 30522 tokens and 512 positions.
    Case("CustomEmbLayerNorm", "CustomEmbLayerNormPluginDynamic", "embeddings summed + layer_norm", True,
         emb_layer_norm, (384, 8, 768, 30522, 512), (6, 2, 16, 50, 8)),
]
