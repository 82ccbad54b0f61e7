"""How a row shows that Kiln computed what its peer computed: max|diff| of dense outputs, kept-box sets for NMS,
values and index consistency for top-k. Each returns the short text the row prints."""
import numpy as np


def as_numpy(tensor):
    """A torch tensor (any device and type) or an array, as float64 numpy."""
    if hasattr(tensor, "detach"):
        tensor = tensor.detach().float().cpu().numpy()
    return np.asarray(tensor, dtype=np.float64)


def max_diff_text(actual, expected):
    actual, expected = as_numpy(actual), as_numpy(expected)
    if actual.size != expected.size:
        return f"shape {actual.shape} vs {expected.shape}"
    actual, expected = actual.reshape(-1), expected.reshape(-1)
    if actual.size == 0:
        return "empty"
    # The peer's largest magnitude beside the difference, so that a row of zeros cannot pass unnoticed.
    return f"{np.abs(actual - expected).max():.1e} (max|ref| {np.abs(expected).max():.2g})"


def dense(output_name):
    """A check comparing one Kiln output with the peer's (one tensor) by max|diff|."""
    return lambda kiln, peer: max_diff_text(kiln[output_name], peer)


def _kept(counts, boxes, scores, classes):
    """The kept detections of each image as a set of (image, class, box corners, score)."""
    counts, boxes, scores, classes = (as_numpy(a) for a in (counts, boxes, scores, classes))
    kept = set()
    for image in range(boxes.shape[0]):
        for slot in range(int(counts.reshape(-1)[image])):
            corners = tuple(np.round(boxes[image, slot], 5))
            kept.add((image, int(classes[image, slot]), corners, round(float(scores[image, slot]), 5)))
    return kept


def kept_sets(kiln_names):
    """A check comparing NMS outputs as sets of kept boxes; kiln_names lists Kiln's outputs in the order (count,
    boxes, scores, classes), and the peer returns its four tensors in that order."""

    def check(kiln, peer):
        ours = _kept(*(kiln[name] for name in kiln_names))
        theirs = _kept(*peer)
        if ours == theirs:
            return f"same {len(ours)} boxes"
        return f"{len(ours ^ theirs)} of {len(ours | theirs)} boxes differ"

    return check


def topk(values_name, indices_name, x):
    """TopK: values by max|diff| with the peer's, and Kiln's indices pointing at its values in x (equal values
    may legitimately come in another index order than the peer's)."""

    def check(kiln, peer):
        values, indices = as_numpy(kiln[values_name]), kiln[indices_name].astype(np.int64)
        rows = x.reshape(-1, x.shape[-1]).astype(np.float64)
        picked = np.take_along_axis(rows, indices.reshape(rows.shape[0], -1), axis=1)
        wrong = int(np.count_nonzero(picked != values.reshape(picked.shape)))
        return f"{max_diff_text(values, peer[0])}; {wrong} bad indices"

    return check
