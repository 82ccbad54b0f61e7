"""The model zoo: real architectures from torchvision, timm and transformers (random weights), each at a small
configuration (exported into tests/models/<name>/ and run by CTest on the CPU backend) and at its real size (run on
the GPU machine by bench/zoo_gpu.py).

Each entry makes an eval-mode torch module and example inputs. The exports use PyTorch's TorchScript exporter at
opset 17 with a dynamic batch (and sequence, for text), as users export for TensorRT.
"""
import dataclasses
from typing import Callable, Dict, List, Tuple


@dataclasses.dataclass
class Export:
    """What torch.onnx.export needs: the module, its example inputs, their names and dynamic axes."""
    module: object
    inputs: Tuple
    input_names: List[str]
    output_names: List[str]
    dynamic_axes: Dict[str, Dict[int, str]]

    def __post_init__(self):
        # Inference throughout: a wrapper made here starts in training mode, which torch.onnx.export restores after
        # exporting in eval mode, so PyTorch would then run the wrapped model with dropout.
        self.module.eval()


@dataclasses.dataclass
class ZooModel:
    name: str
    source: str  # the library the architecture comes from
    make: Callable[[bool], Export]  # make(small) -> Export


def _image(batch, size):
    import torch
    return torch.rand(batch, 3, size, size)


def _image_model(module, size, batch=1, outputs=("logits",)):
    axes = {"image": {0: "batch"}}
    axes.update({name: {0: "batch"} for name in outputs})
    return Export(module.eval(), (_image(batch, size),), ["image"], list(outputs), axes)


def _text_inputs(batch, length, vocab):
    import torch
    ids = torch.randint(0, vocab, (batch, length), dtype=torch.int64)
    mask = torch.ones(batch, length, dtype=torch.int64)
    mask[:, length - length // 4:] = 0  # padding at the end: the attention mask matters
    return ids, mask


def _text_model(module, batch, length, vocab, output="hidden"):
    ids, mask = _text_inputs(batch, length, vocab)
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
            output: {0: "batch", 1: "sequence"}}
    return Export(_first_output(module.eval(), ("input_ids", "attention_mask")), (ids, mask), ["input_ids", "attention_mask"], [output], axes)


def _first_output(module, keywords):
    """transformers' models take keyword arguments and return a tuple (return_dict=False): the export passes its
    inputs as `keywords` and takes the first tensor."""
    import torch

    class FirstOutput(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            return self.inner(**dict(zip(keywords, args)), return_dict=False)[0]

    return FirstOutput(module)


# ---- torchvision ---------------------------------------------------------------------------------------------------

def shufflenet_v2(small):
    from torchvision.models import shufflenetv2
    if small:
        model = shufflenetv2.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)
        return _image_model(model, 64)
    return _image_model(shufflenetv2.shufflenet_v2_x1_0(weights=None), 224)


def mobilenet_v3(small):
    from torchvision.models import mobilenet_v3_large
    if small:
        from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf
        settings, _ = _mobilenet_v3_conf("mobilenet_v3_large", width_mult=0.25)
        return _image_model(MobileNetV3(settings, last_channel=64, num_classes=10), 64)
    return _image_model(mobilenet_v3_large(weights=None), 224)


def efficientnet(small):
    from torchvision.models import efficientnet_b0
    if small:
        import torchvision.models.efficientnet as efn
        settings, last = efn._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=0.3)
        model = efn.EfficientNet(settings, 0.2, num_classes=10, last_channel=last)
        return _image_model(model, 64)
    return _image_model(efficientnet_b0(weights=None), 224)


def regnet(small):
    """RegNetY-800MF: grouped convolutions and squeeze-and-excitation blocks."""
    from torchvision.models import regnet_y_800mf
    if small:
        from torchvision.models.regnet import BlockParams, RegNet
        params = BlockParams.from_init_params(depth=4, w_0=8, w_a=8.0, w_m=2.0, group_width=8, se_ratio=0.25)
        return _image_model(RegNet(params, num_classes=10, stem_width=8), 64)
    return _image_model(regnet_y_800mf(weights=None), 224)


def swin(small):
    from torchvision.models import swin_t
    from torchvision.models.swin_transformer import SwinTransformer
    if small:
        # Two blocks a stage, so the second shifts its windows (an attention mask built with ScatterND); 40/4 = 10
        # patches is not a multiple of the window, so windows are padded.
        model = SwinTransformer([4, 4], 16, [2, 2], [1, 2], [4, 4], num_classes=10)
        return _image_model(model, 40)
    return _image_model(swin_t(weights=None), 224)


def maxvit(small):
    from torchvision.models import maxvit_t
    from torchvision.models.maxvit import MaxVit
    if small:
        model = MaxVit((32, 32), 8, 2, [8, 16], [1, 1], head_dim=4, stochastic_depth_prob=0.0, num_classes=10)
        return _image_model(model, 32)
    return _image_model(maxvit_t(weights=None), 224)


def ssdlite_backbone_head(small):
    """SSDlite-320's backbone and head (the raw box regressions and class logits), without its pre- and
    post-processing."""
    import torch

    if small:
        backbone, head = _small_ssdlite(128, classes=5)
    else:
        from torchvision.models.detection import ssdlite320_mobilenet_v3_large
        detector = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        backbone, head = detector.backbone, detector.head

    class BackboneHead(torch.nn.Module):
        def __init__(self, backbone, head):
            super().__init__()
            self.backbone = backbone
            self.head = head

        def forward(self, image):
            features = list(self.backbone(image).values())
            out = self.head(features)
            return out["bbox_regression"], out["cls_logits"]

    return _image_model(BackboneHead(backbone, head), 128 if small else 320, outputs=("boxes", "class_logits"))


def _small_ssdlite(size, classes):
    """SSDlite-320's layout at a quarter of its width, its extra layers included (torchvision's builder keeps those
    at full width)."""
    from functools import partial

    from torch import nn
    from torchvision.models import mobilenet_v3_large
    from torchvision.models.detection import _utils, ssdlite
    from torchvision.models.detection.anchor_utils import DefaultBoxGenerator

    norm = partial(nn.BatchNorm2d, eps=0.001, momentum=0.03)
    features = mobilenet_v3_large(weights=None, width_mult=0.25, reduced_tail=True, norm_layer=norm).features
    strided = [i for i, block in enumerate(features) if getattr(block, "_is_cn", False)]
    backbone = ssdlite.SSDLiteFeatureExtractorMobileNet(features, strided[-1], norm, width_mult=0.25)
    anchors = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
    channels = _utils.retrieve_out_channels(backbone, (size, size))
    return backbone, ssdlite.SSDLiteHead(channels, anchors.num_anchors_per_location(), classes, norm)


def _spread_scores(detector, images):
    """Gives the detector's batch norms the statistics of a batch of `images` and triples its classification weights.
    With random weights and the default statistics (mean 0, variance 1) the activations shrink layer after layer (the
    small SSDlite's last features are about 1e-21): every class scores 1 / classes, the detections all tie and
    rounding orders them. With these, the scores spread over (0, 1) and the reference's order is the scores'."""
    import torch

    for norm in [m for m in detector.modules() if isinstance(m, torch.nn.BatchNorm2d)]:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average: one batch gives its own statistics
    with torch.no_grad():
        batch = detector.transform(images)[0].tensors
        detector.backbone.train()
        detector.head.train()
        detector.head(list(detector.backbone(batch).values()))
        for block in detector.head.classification_head.module_list:
            block[-1].weight.mul_(3.0)
    detector.eval()


def ssdlite_pipeline(small):
    """SSDlite-320 as torchvision runs it: resizing and normalisation, the network, box decoding, score
    thresholds, per-class non-maximum suppression (ONNX NonMaxSuppression) and the top detections, whose count
    depends on the image."""
    import torch
    from torchvision.models.detection import ssdlite320_mobilenet_v3_large

    detector = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None, score_thresh=0.0)
    if small:
        from torchvision.models.detection.anchor_utils import DefaultBoxGenerator
        detector.backbone, detector.head = _small_ssdlite(96, classes=3)
        detector.anchor_generator = DefaultBoxGenerator([[2, 3] for _ in range(6)], min_ratio=0.2, max_ratio=0.95)
        detector.transform.min_size, detector.transform.max_size = (96,), 96
        detector.transform.fixed_size = (96, 96)

    class Detections(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, image):
            found = self.inner([image[0]])[0]
            return found["boxes"], found["scores"], found["labels"]

    height, width = (120, 150) if small else (160, 200)
    _spread_scores(detector, [torch.rand(3, height, width) for _ in range(8)])
    image = torch.rand(1, 3, height, width)
    return Export(Detections(detector.eval()), (image,), ["image"], ["boxes", "scores", "labels"],
                  {"image": {2: "height", 3: "width"}, "boxes": {0: "detections"}, "scores": {0: "detections"},
                   "labels": {0: "detections"}})


# ---- timm ----------------------------------------------------------------------------------------------------------

def vit(small):
    import timm
    if small:
        return _image_model(timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8,
                                              embed_dim=32, depth=2, num_heads=2, num_classes=10), 32)
    return _image_model(timm.create_model("vit_base_patch16_224", pretrained=False), 224)


def vit_torchvision(small):
    # torchvision's ViT runs its attention through nn.MultiheadAttention, whose export moves the data around each
    # attention in other ways than timm's (export_zoo.py exports its Python path, not its fused fast path).
    from torchvision.models import VisionTransformer, vit_b_16
    if small:
        return _image_model(VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
                                              mlp_dim=64, num_classes=10), 32)
    return _image_model(vit_b_16(weights=None), 224)


def deit(small):
    import timm
    if small:
        return _image_model(timm.create_model("deit_tiny_distilled_patch16_224", pretrained=False, img_size=32,
                                              patch_size=8, embed_dim=32, depth=2, num_heads=2, num_classes=10), 32)
    return _image_model(timm.create_model("deit_small_distilled_patch16_224", pretrained=False), 224)


def convnext(small):
    import timm
    if small:
        return _image_model(timm.create_model("convnext_tiny", pretrained=False, depths=(1, 1, 1, 1),
                                              dims=(8, 16, 32, 64), num_classes=10), 64)
    return _image_model(timm.create_model("convnext_tiny", pretrained=False), 224)


def resnest(small):
    import timm
    if small:
        from timm.models.resnest import ResNestBottleneck
        from timm.models.resnet import ResNet
        model = ResNet(ResNestBottleneck, [1, 1, 1, 1], num_classes=10, stem_type="deep", stem_width=8,
                       avg_down=True, base_width=16, cardinality=1, channels=(8, 16, 32, 64),
                       block_args=dict(radix=2, avd=True, avd_first=False))
        return _image_model(model, 64)
    return _image_model(timm.create_model("resnest14d", pretrained=False), 224)


def poolformer(small):
    """PoolFormer-S12: average pooling as the token mixer, GroupNorm over whole samples, GELU MLPs."""
    import timm
    if small:
        from timm.layers import GroupNorm1
        from timm.models.metaformer import MetaFormer
        from torch import nn
        # poolformer_s12's arguments (timm's metaformer.py), at a small width and depth.
        model = MetaFormer(depths=(1, 1, 1, 1), dims=(8, 16, 32, 64), downsample_norm=None, mlp_act=nn.GELU,
                           mlp_bias=True, norm_layers=GroupNorm1, layer_scale_init_values=1e-5,
                           res_scale_init_values=None, use_mlp_head=False, num_classes=10)
        return _image_model(model, 64)
    return _image_model(timm.create_model("poolformer_s12", pretrained=False), 224)


def mobilevit(small):
    """MobileViT-S: inverted residual blocks, and attention over the pixels of each 2 x 2 patch position."""
    import timm
    if small:
        from timm.models.byobnet import ByobNet, ByoModelCfg
        from timm.models.mobilevit import _inverted_residual_block, _mobilevit_block
        # mobilevit_s's layout (timm's mobilevit.py) at a small width and depth.
        config = ByoModelCfg(
            blocks=(_inverted_residual_block(d=1, c=8, s=1, br=2.0), _inverted_residual_block(d=1, c=16, s=2, br=2.0),
                    _mobilevit_block(d=1, c=24, s=2, transformer_dim=32, transformer_depth=1, patch_size=2, br=2.0),
                    _mobilevit_block(d=1, c=32, s=2, transformer_dim=32, transformer_depth=1, patch_size=2, br=2.0)),
            stem_chs=8, stem_type="3x3", stem_pool="", downsample="", act_layer="silu", num_features=64)
        return _image_model(ByobNet(config, num_classes=10), 64)
    return _image_model(timm.create_model("mobilevit_s", pretrained=False), 256)  # timm's input size for it


# ---- transformers --------------------------------------------------------------------------------------------------

def bert(small):
    from transformers import BertConfig, BertModel
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64) if small else BertConfig()
    return _text_model(BertModel(config), 2, 16 if small else 128, config.vocab_size)


def distilbert(small):
    from transformers import DistilBertConfig, DistilBertModel
    config = DistilBertConfig(vocab_size=100, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                              max_position_embeddings=64) if small else DistilBertConfig()
    return _text_model(DistilBertModel(config), 2, 16 if small else 128, config.vocab_size)


def gpt2(small):
    from transformers import GPT2Config, GPT2Model
    config = GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=64, use_cache=False) \
        if small else GPT2Config(n_layer=6, use_cache=False)
    return _text_model(GPT2Model(config), 2, 16 if small else 128, config.vocab_size)


def llama_layer(small):
    """A LLaMA-style decoder: embedding, one decoder layer (RMSNorm, rotary attention with grouped KV heads, SwiGLU),
    the final RMSNorm."""
    from transformers import LlamaConfig, LlamaModel
    if small:
        config = LlamaConfig(vocab_size=100, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, use_cache=False)
    else:
        config = LlamaConfig(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=1,
                             num_attention_heads=32, num_key_value_heads=4, use_cache=False)
    return _text_model(LlamaModel(config), 1, 16 if small else 128, config.vocab_size)


def t5(small):
    """T5's encoder and decoder, teacher-forced: relative position buckets computed from the sequence lengths."""
    import torch
    from transformers import T5Config, T5Model
    config = T5Config(vocab_size=100, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
                      relative_attention_num_buckets=8, use_cache=False) if small \
        else T5Config(use_cache=False)  # t5-small's sizes
    ids, mask = _text_inputs(2, 16 if small else 128, config.vocab_size)
    decoder_ids = torch.randint(0, config.vocab_size, (2, 8 if small else 32), dtype=torch.int64)
    axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
            "decoder_input_ids": {0: "batch", 1: "target"}, "hidden": {0: "batch", 1: "target"}}

    class EncoderDecoder(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, decoder_input_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              decoder_input_ids=decoder_input_ids, return_dict=False)[0]

    return Export(EncoderDecoder(T5Model(config).eval()), (ids, mask, decoder_ids),
                  ["input_ids", "attention_mask", "decoder_input_ids"], ["hidden"], axes)


def wav2vec2(small):
    import torch
    from transformers import Wav2Vec2Config, Wav2Vec2Model
    if small:
        config = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
                                conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                                num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                                feat_extract_norm="layer", do_stable_layer_norm=True)
    else:
        config = Wav2Vec2Config(feat_extract_norm="layer", do_stable_layer_norm=True)  # the "large-lv60" layout
    samples = 1600 if small else 16000
    audio = torch.randn(1, samples)
    mask = torch.ones(1, samples, dtype=torch.int64)
    mask[:, samples - samples // 5:] = 0
    axes = {"audio": {0: "batch", 1: "samples"}, "attention_mask": {0: "batch", 1: "samples"},
            "hidden": {0: "batch", 1: "frames"}}
    return Export(_first_output(Wav2Vec2Model(config).eval(), ("input_values", "attention_mask")), (audio, mask), ["audio", "attention_mask"],
                  ["hidden"], axes)


def whisper_encoder(small):
    import torch
    from transformers import WhisperConfig
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    if small:
        config = WhisperConfig(num_mel_bins=16, d_model=32, encoder_layers=2, encoder_attention_heads=2,
                               encoder_ffn_dim=64, max_source_positions=32)
    else:
        config = WhisperConfig(num_mel_bins=80, d_model=384, encoder_layers=4, encoder_attention_heads=6,
                               encoder_ffn_dim=1536, max_source_positions=1500)  # whisper-tiny
    frames = 2 * config.max_source_positions  # the encoder expects exactly this many frames
    features = torch.randn(1, config.num_mel_bins, frames)
    axes = {"features": {0: "batch"}, "hidden": {0: "batch"}}
    return Export(_first_output(WhisperEncoder(config).eval(), ("input_features",)), (features,), ["features"], ["hidden"], axes)


def detr(small):
    """DETR with a ResNet backbone of transformers' own (no timm weights to fetch): class logits and boxes."""
    import torch
    from transformers import DetrConfig, DetrForObjectDetection, ResNetConfig
    if small:
        backbone = ResNetConfig(embedding_size=8, hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1],
                                layer_type="basic", out_features=["stage4"])
        config = DetrConfig(use_timm_backbone=False, backbone_config=backbone, use_pretrained_backbone=False,
                            d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                            decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, num_queries=10,
                            num_labels=5)
    else:
        backbone = ResNetConfig(out_features=["stage4"])  # ResNet-50
        config = DetrConfig(use_timm_backbone=False, backbone_config=backbone, use_pretrained_backbone=False)

    class LogitsAndBoxes(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, image):
            out = self.inner(pixel_values=image)
            return out.logits, out.pred_boxes

    return _image_model(LogitsAndBoxes(DetrForObjectDetection(config)), 64 if small else 512,
                        outputs=("class_logits", "boxes"))


def detr_postprocessed(small):
    """DETR with its post-processing in the graph: class probabilities (softmax without the no-object class),
    boxes from centre/size to corners in pixels, and only the queries scoring above a threshold (a count that
    depends on the image; the random weights' scores are low, so the threshold is too)."""
    import torch

    network = detr(small).module

    class Detections(torch.nn.Module):
        threshold = 0.2

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, image):
            logits, boxes = self.inner(image)
            scores, labels = logits.softmax(-1)[0, :, :-1].max(-1)
            centre, size = boxes[0, :, :2], boxes[0, :, 2:]
            corners = torch.cat((centre - size / 2, centre + size / 2), -1) * image.shape[-1]
            keep = scores > self.threshold
            return corners[keep], scores[keep], labels[keep]

    image = torch.rand(1, 3, 64 if small else 512, 64 if small else 512)
    return Export(Detections(network), (image,), ["image"], ["boxes", "scores", "labels"],
                  {"boxes": {0: "detections"}, "scores": {0: "detections"}, "labels": {0: "detections"}})


# ---- the team's own ------------------------------------------------------------------------------------------------

def yolo_style(small):
    """A YOLOv8-shaped detector: Conv-BN-SiLU stages with split-and-concatenate blocks, SPPF max pools, an FPN neck
    (nearest upsampling, concatenation) and an anchor-free head decoded in the graph (distribution focal loss
    softmax, grid offsets, sigmoid scores)."""
    from yolo_style import YoloStyle
    width = 8 if small else 64
    return _image_model(YoloStyle(width=width, classes=4 if small else 80), 64 if small else 640,
                        outputs=("detections",))


# ---- sequence models: ONNX's LSTM, GRU and RNN, and a TorchScript loop, which Kiln imports as loops -------------------

def _sequence_model(module, small, features):
    import torch
    batch, steps = (2, 5) if small else (8, 64)
    inputs = (torch.randn(batch, steps, features),)
    axes = {"sequence": {0: "batch", 1: "steps"}, "output": {0: "batch", 1: "steps"}}
    return Export(module, inputs, ["sequence"], ["output"], axes)


def _recurrent(kind, small, **options):
    import torch

    class Recurrent(torch.nn.Module):
        """A batch-first recurrent stack and a linear head on every step's output."""

        def __init__(self):
            super().__init__()
            hidden = 16 if small else 256
            self.rnn = getattr(torch.nn, kind)(input_size=8, hidden_size=hidden, batch_first=True, **options)
            directions = 2 if options.get("bidirectional") else 1
            self.head = torch.nn.Linear(hidden * directions, 4)

        def forward(self, sequence):
            return self.head(self.rnn(sequence)[0])

    return _sequence_model(Recurrent(), small, 8)


def lstm(small):
    """torch.nn.LSTM, two bidirectional layers."""
    return _recurrent("LSTM", small, num_layers=2, bidirectional=True)


def gru(small):
    """torch.nn.GRU, two layers (ONNX's linear_before_reset form)."""
    return _recurrent("GRU", small, num_layers=2)


def rnn(small):
    """torch.nn.RNN with ReLU, bidirectional."""
    return _recurrent("RNN", small, nonlinearity="relu", bidirectional=True)


def scripted_loop(small):
    """A for loop over the steps in TorchScript (torch.jit.script), which exports as ONNX's Loop: a decaying sum of
    each step's projection, read from the sequence by the loop's counter."""
    import torch

    class DecayingSum(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.project = torch.nn.Linear(8, 16 if small else 256)

        def forward(self, sequence):
            state = torch.zeros(sequence.size(0), self.project.out_features, dtype=sequence.dtype,
                                device=sequence.device)  # on the GPU too, where the benchmark runs it
            for step in range(sequence.size(1)):
                state = 0.5 * state + torch.tanh(self.project(sequence.select(1, step)))
            return state

    export = _sequence_model(torch.jit.script(DecayingSum()), small, 8)
    export.dynamic_axes["output"] = {0: "batch"}
    return export


MODELS = [
    ZooModel("shufflenet_v2", "torchvision", shufflenet_v2),
    ZooModel("mobilenet_v3", "torchvision", mobilenet_v3),
    ZooModel("efficientnet", "torchvision", efficientnet),
    ZooModel("regnet", "torchvision", regnet),
    ZooModel("swin", "torchvision", swin),
    ZooModel("maxvit", "torchvision", maxvit),
    ZooModel("ssdlite_backbone_head", "torchvision", ssdlite_backbone_head),
    ZooModel("ssdlite_pipeline", "torchvision", ssdlite_pipeline),
    ZooModel("vit", "timm", vit),
    ZooModel("vit_torchvision", "torchvision", vit_torchvision),
    ZooModel("deit", "timm", deit),
    ZooModel("convnext", "timm", convnext),
    ZooModel("resnest", "timm", resnest),
    ZooModel("poolformer", "timm", poolformer),
    ZooModel("mobilevit", "timm", mobilevit),
    ZooModel("bert", "transformers", bert),
    ZooModel("distilbert", "transformers", distilbert),
    ZooModel("gpt2", "transformers", gpt2),
    ZooModel("llama_layer", "transformers", llama_layer),
    ZooModel("t5", "transformers", t5),
    ZooModel("wav2vec2", "transformers", wav2vec2),
    ZooModel("whisper_encoder", "transformers", whisper_encoder),
    ZooModel("detr", "transformers", detr),
    ZooModel("detr_postprocessed", "transformers", detr_postprocessed),
    ZooModel("yolo_style", "own", yolo_style),
    ZooModel("lstm", "torch", lstm),
    ZooModel("gru", "torch", gru),
    ZooModel("rnn", "torch", rnn),
    ZooModel("scripted_loop", "torch", scripted_loop),
]
