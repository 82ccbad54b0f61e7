"""NMS cases: EfficientNMS_TRT and BatchedNMSDynamic_TRT beside torchvision.ops.batched_nms, with the score filter,
per-class top-k and per-image padding the plugins do written in PyTorch around it."""
import numpy as np

from plugin_case import Case, Instance, float_type, plugin_model, to_device
from plugin_checks import kept_sets


def random_boxes(rng, batch, count):
    """Corner boxes (x1, y1, x2, y2) inside [0, 1], sides between 0.02 and 0.3: normalized, so BatchedNMS's
    clipping leaves them as they are and the kept sets compare exactly."""
    centre = rng.uniform(0.15, 0.85, (batch, count, 2))
    half = rng.uniform(0.01, 0.15, (batch, count, 2))
    return np.concatenate([centre - half, centre + half], axis=-1).astype(np.float32)


def detector_scores(rng, batch, count, classes, hot_fraction):
    """Mostly low scores, as a detector's head gives: hot_fraction of the (box, class) pairs get a score in
    [0.05, 1), the rest stay under 0.05."""
    scores = rng.uniform(0.0, 0.05, (batch, count, classes))
    hot = rng.random((batch, count, classes)) < hot_fraction
    scores[hot] = rng.uniform(0.05, 1.0, int(hot.sum()))
    return scores.astype(np.float32)


def pad_per_image(image, boxes, scores, classes, tie_key, batch, keep, class_fill):
    """The first `keep` detections of each image by descending score in padded [batch, keep] tensors, and the
    count per image: the plugins' output layout. Equal scores are ordered by tie_key, ascending, as the plugin
    documents it (FP16 scores tie often, and the order decides which detections make the first `keep`)."""
    import torch

    order = torch.sort(tie_key, stable=True).indices
    order = order[torch.sort(scores[order], descending=True, stable=True).indices]
    order = order[torch.sort(image[order], stable=True).indices]
    image, boxes, scores, classes = image[order], boxes[order], scores[order], classes[order]
    counts = torch.bincount(image, minlength=batch)
    starts = torch.cumsum(counts, 0) - counts
    rank = torch.arange(image.numel(), device=image.device) - starts[image]
    taken = rank < keep
    image, rank = image[taken], rank[taken]
    out_boxes = boxes.new_zeros(batch, keep, 4)
    out_scores = scores.new_zeros(batch, keep)
    out_classes = torch.full((batch, keep), class_fill, dtype=torch.int32, device=image.device)
    out_boxes[image, rank] = boxes[taken]
    out_scores[image, rank] = scores[taken]
    out_classes[image, rank] = classes[taken].int()
    return counts.clamp(max=keep).int(), out_boxes, out_scores, out_classes


def efficient_nms_peer(boxes, scores, score_threshold, iou_threshold, keep):
    import torchvision

    batch, _, classes = scores.shape
    image, box, label = (scores >= score_threshold).nonzero(as_tuple=True)
    candidates = boxes[image, box]
    candidate_scores = scores[image, box, label]
    kept = torchvision.ops.batched_nms(candidates, candidate_scores, image * classes + label, iou_threshold)
    # EfficientNMS orders equal scores by box, then class.
    tie_key = box[kept] * classes + label[kept]
    return pad_per_image(image[kept], candidates[kept], candidate_scores[kept], label[kept], tie_key, batch, keep, 0)


def batched_nms_peer(boxes, scores, score_threshold, iou_threshold, top_k, keep):
    import torch
    import torchvision

    batch, count, classes = scores.shape
    best, best_box = scores.transpose(1, 2).topk(min(top_k, count), dim=2)  # [batch, classes, top_k]
    image, label, slot = (best > score_threshold).nonzero(as_tuple=True)
    box = best_box[image, label, slot]
    # Candidates by box within each (image, class): nms sorts stably, so equal scores keep box order, as the plugin's
    # do (topk leaves the order of equal scores open).
    by_box = torch.sort((image * classes + label) * count + box).indices
    image, label, slot, box = image[by_box], label[by_box], slot[by_box], box[by_box]
    candidates = boxes[image, box, 0]
    candidate_scores = best[image, label, slot]
    kept = torchvision.ops.batched_nms(candidates, candidate_scores, image * classes + label, iou_threshold)
    # BatchedNMS orders equal scores by class, then box.
    tie_key = label[kept] * count + box[kept]
    return pad_per_image(image[kept], candidates[kept], candidate_scores[kept], label[kept], tie_key, batch, keep, -1)


def efficient_nms(rng, fp16, batch, count, classes, keep, score_threshold, iou_threshold, hot_fraction):
    dtype = float_type(fp16)
    inputs = {"boxes": random_boxes(rng, batch, count).astype(dtype),
              "scores": detector_scores(rng, batch, count, classes, hot_fraction).astype(dtype)}
    outputs = ["num_detections", "detection_boxes", "detection_scores", "detection_classes"]
    fields = {"score_threshold": score_threshold, "iou_threshold": iou_threshold, "max_output_boxes": keep,
              "background_class": -1, "score_activation": 0, "class_agnostic": 0, "box_coding": 0}

    def peer(device):
        t = to_device(inputs, device)
        return lambda: efficient_nms_peer(t["boxes"], t["scores"], score_threshold, iou_threshold, keep)

    return Instance(plugin_model("EfficientNMS_TRT", "1", inputs, outputs, fields), inputs,
                    f"{batch}x{count}x{classes} keep {keep}", peer, kept_sets(outputs))


def batched_nms(rng, fp16, batch, count, classes, top_k, keep, score_threshold, iou_threshold, hot_fraction):
    dtype = float_type(fp16)
    inputs = {"boxes": random_boxes(rng, batch, count)[:, :, None, :].astype(dtype),
              "scores": detector_scores(rng, batch, count, classes, hot_fraction).astype(dtype)}
    outputs = ["num_detections", "nmsed_boxes", "nmsed_scores", "nmsed_classes"]
    fields = {"shareLocation": 1, "backgroundLabelId": -1, "numClasses": classes, "topK": top_k, "keepTopK": keep,
              "scoreThreshold": score_threshold, "iouThreshold": iou_threshold, "isNormalized": 1, "clipBoxes": 1,
              "scoreBits": 16, "caffeSemantics": 1}

    def peer(device):
        t = to_device(inputs, device)
        return lambda: batched_nms_peer(t["boxes"], t["scores"], score_threshold, iou_threshold, top_k, keep)

    return Instance(plugin_model("BatchedNMSDynamic_TRT", "1", inputs, outputs, fields), inputs,
                    f"{batch}x{count}x{classes} topK {top_k} keep {keep}", peer, kept_sets(outputs))


PEER = "torchvision batched_nms"
# Sizes: (images, boxes, classes, [topK,] kept, score threshold, IoU threshold, share of hot scores). EfficientNMS
# suppresses at IoU >= threshold, torchvision at IoU > threshold: with FP16 corners an IoU of exactly 0.5 happens
# (it did at real size), so the thresholds are 0.45, which the float IoU of FP16 corners is far less likely to hit.
CASES = [
    # YOLO-like: 8 images of 8400 boxes and 80 classes, about 1% of the pairs over the threshold.
    Case("EfficientNMS_yolo", "EfficientNMS_TRT", PEER, True, efficient_nms,
         (8, 8400, 80, 100, 0.25, 0.45, 0.0125), (2, 300, 6, 20, 0.25, 0.45, 0.0125)),
    Case("BatchedNMSDynamic_yolo", "BatchedNMSDynamic_TRT", PEER, True, batched_nms,
         (8, 8400, 80, 1000, 100, 0.25, 0.45, 0.0125), (2, 300, 6, 50, 20, 0.25, 0.45, 0.0125)),
    # Many candidates: most pairs over the threshold, so topK 10000 binds, NMS sees 10000 boxes per class and about
    # 2000 of them survive in each, so keepTopK 5000 binds too.
    Case("EfficientNMS_large", "EfficientNMS_TRT", PEER, True, efficient_nms,
         (4, 20000, 4, 5000, 0.05, 0.45, 0.95), (2, 1500, 3, 600, 0.05, 0.45, 0.95)),
    Case("BatchedNMSDynamic_large", "BatchedNMSDynamic_TRT", PEER, True, batched_nms,
         (4, 20000, 4, 10000, 5000, 0.05, 0.45, 0.95), (2, 1500, 3, 1000, 600, 0.05, 0.45, 0.95)),
]
