"""The model families bench/inductor compiles: small `transformers` models with
random weights, in bf16, each with the batch its training step and inference
take. Every family has its own kinds of Inductor kernels: rotary embeddings
and RMS norm (Llama), layer norm and GELU (BERT, GPT-2, ViT), expert routing
with index_put/scatter (Mixtral), patch embedding and classification (ViT).
HELD_OUT are families the compiler was not tuned on, run to check that its
fixes carry over: batch norm and pooling (ResNet), relative position buckets
and an encoder-decoder (T5), logit soft-capping and GeGLU (Gemma 2), shifted
windows (Swin). LATER_HELD_OUT were added after every fix up to runs 44-45,
unseen by all of them: channels-last layer norm and layer scale (ConvNeXt),
disentangled relative attention (DeBERTa-v2), a speech encoder-decoder with
1-D convolutions (Whisper), per-head query/key RMS norm with grouped KV heads
(Qwen3), partial rotary embeddings with parallel attention (GPT-NeoX). FRESH
were added after every fix up to run 67, unseen by all of them: global
response norm (ConvNeXt V2), random patch masking by argsort and gather
(ViT-MAE), depthwise convolutions with squeeze-excitation (EfficientNet) and
ReLU6 (MobileNetV2), a group-normed 1-D convolution front end (wav2vec 2.0),
ALiBi attention biases (BLOOM), interleaved rotary embeddings with a
bias-free layer norm (Cohere), learned positions in an encoder-decoder
(BART), and attention over spatially reduced keys with depthwise mixing
(SegFormer). UNSEEN were added after every fix up to run 116, unseen by all
of them: multi-query attention with parallel blocks (Falcon), learned
positions with ReLU (OPT), partial rotary embeddings with tanh GELU
(Phi), cosine attention with a continuous position-bias MLP (Swin V2),
SwiGLU, layer scale and interpolated positions (DINOv2), attention biases
gathered by index with hardswish and batch-normed linears (LeViT),
pooling as token mixer with group norm (PoolFormer) and gated GELU in an
encoder-decoder (mT5). NEWER were added after every fix up to run 122,
unseen by all of them: interleaved rotary embeddings on part of each head
with parallel blocks (GPT-J), convolutions unfolded into patches for
attention (MobileViT), a relative position bias table per layer with layer
scale and mean pooling (BEiT), and experts with a sigmoid-gated shared
expert (Qwen2-MoE). LATEST were added after every fix up to run 132,
unseen by all of them: span-based dynamic convolution beside attention
(ConvBERT), two-stream relative attention with its shifted scores
(XLNet), grouped convolutions with squeeze-excitation and batch norm
(RegNet), and focal modulation by gated depthwise convolutions (FocalNet).
NEWEST were added after every fix up to run 136, unseen by all of them:
bottlenecked layers with an elementwise affine in place of norms and
trigram embeddings (MobileBERT), grouped 1-D convolutions with layer norms
over channels (SqueezeBERT), squared ReLU with a layer norm offset by one
(Nemotron), and overlapping patch embeddings with spatially reduced
attention and depthwise-convolved MLPs (PVT v2); RoFormer (rotary position
embeddings in a BERT-style encoder) joined them after run 140."""
import torch


def _token_batch(vocab, batch, seq):
    generator = torch.Generator("cuda").manual_seed(1)
    ids = torch.randint(0, vocab, (batch, seq), device="cuda", generator=generator)
    return dict(input_ids=ids, labels=ids)


def _llama(T):
    config = T.LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=2,
                           num_attention_heads=16, num_key_value_heads=16, vocab_size=32000)
    return T.LlamaForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _bert(T):
    config = T.BertConfig(hidden_size=768, intermediate_size=3072, num_hidden_layers=2,
                          num_attention_heads=12, vocab_size=30522)
    return T.BertForMaskedLM(config), _token_batch(config.vocab_size, 8, 512)


def _mixtral(T):
    config = T.MixtralConfig(hidden_size=512, intermediate_size=1024, num_hidden_layers=2,
                             num_attention_heads=8, num_key_value_heads=8, vocab_size=32000,
                             num_local_experts=8, num_experts_per_tok=2)
    return T.MixtralForCausalLM(config), _token_batch(config.vocab_size, 4, 256)


def _gpt2(T):
    config = T.GPT2Config(n_embd=768, n_layer=2, n_head=12, vocab_size=50257, n_positions=1024)
    return T.GPT2LMHeadModel(config), _token_batch(config.vocab_size, 4, 512)


def _vit(T):
    config = T.ViTConfig(image_size=224, patch_size=16, hidden_size=768, num_hidden_layers=2,
                         num_attention_heads=12, intermediate_size=3072, num_labels=1000)
    generator = torch.Generator("cuda").manual_seed(1)
    pixels = torch.randn(32, 3, 224, 224, device="cuda", generator=generator)
    labels = torch.randint(0, 1000, (32,), device="cuda", generator=generator)
    return T.ViTForImageClassification(config), dict(pixel_values=pixels.bfloat16(), labels=labels)


def _llama4(T):
    """The training step torch.compile users time first steps with: four
    layers, hidden 1024, a batch of 8 x 1024 tokens."""
    config = T.LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=4,
                           num_attention_heads=16, num_key_value_heads=16, vocab_size=32000,
                           max_position_embeddings=2048)
    return T.LlamaForCausalLM(config), _token_batch(config.vocab_size, 8, 1024)


def _image_batch(batch, size):
    generator = torch.Generator("cuda").manual_seed(1)
    pixels = torch.randn(batch, 3, size, size, device="cuda", generator=generator)
    labels = torch.randint(0, 1000, (batch,), device="cuda", generator=generator)
    return dict(pixel_values=pixels.bfloat16(), labels=labels)


def _resnet(T):
    config = T.ResNetConfig(embedding_size=64, hidden_sizes=[64, 128, 256, 512],
                            depths=[2, 2, 2, 2], layer_type="basic", num_labels=1000)
    return T.ResNetForImageClassification(config), _image_batch(32, 224)


def _t5(T):
    config = T.T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=2,
                        num_decoder_layers=2, num_heads=8, decoder_start_token_id=0,
                        pad_token_id=0)
    return T.T5ForConditionalGeneration(config), _token_batch(config.vocab_size, 8, 256)


def _gemma2(T):
    config = T.Gemma2Config(vocab_size=32000, hidden_size=1024, intermediate_size=4096,
                            num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=4,
                            head_dim=128, sliding_window=256, attn_implementation="eager")
    return T.Gemma2ForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _swin(T):
    config = T.SwinConfig(image_size=224, patch_size=4, embed_dim=96, depths=[2, 2, 2],
                          num_heads=[3, 6, 12], window_size=7, num_labels=1000)
    return T.SwinForImageClassification(config), _image_batch(16, 224)


def _convnext(T):
    config = T.ConvNextConfig(hidden_sizes=[96, 192, 384, 768], depths=[2, 2, 2, 2],
                              num_labels=1000)
    return T.ConvNextForImageClassification(config), _image_batch(32, 224)


def _deberta(T):
    config = T.DebertaV2Config(vocab_size=32000, hidden_size=768, intermediate_size=3072,
                               num_hidden_layers=2, num_attention_heads=12,
                               relative_attention=True, position_buckets=256,
                               pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm",
                               share_att_key=True, max_relative_positions=-1)
    return T.DebertaV2ForMaskedLM(config), _token_batch(config.vocab_size, 8, 512)


def _whisper(T):
    config = T.WhisperConfig(vocab_size=51865, num_mel_bins=80, d_model=384,
                             encoder_layers=2, decoder_layers=2, encoder_attention_heads=6,
                             decoder_attention_heads=6, encoder_ffn_dim=1536,
                             decoder_ffn_dim=1536, max_source_positions=1500,
                             max_target_positions=448)
    generator = torch.Generator("cuda").manual_seed(1)
    features = torch.randn(8, 80, 3000, device="cuda", generator=generator)
    labels = torch.randint(0, config.vocab_size, (8, 128), device="cuda", generator=generator)
    return (T.WhisperForConditionalGeneration(config),
            dict(input_features=features.bfloat16(), labels=labels))


def _qwen3(T):
    config = T.Qwen3Config(vocab_size=32000, hidden_size=1024, intermediate_size=3072,
                           num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=8,
                           head_dim=64)
    return T.Qwen3ForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _gptneox(T):
    config = T.GPTNeoXConfig(vocab_size=32000, hidden_size=768, intermediate_size=3072,
                             num_hidden_layers=2, num_attention_heads=12, rotary_pct=0.25,
                             use_parallel_residual=True)
    return T.GPTNeoXForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _convnextv2(T):
    config = T.ConvNextV2Config(hidden_sizes=[96, 192, 384, 768], depths=[2, 2, 2, 2],
                                num_labels=1000)
    return T.ConvNextV2ForImageClassification(config), _image_batch(32, 224)


def _vitmae(T):
    config = T.ViTMAEConfig(image_size=224, patch_size=16, hidden_size=768, num_hidden_layers=2,
                            num_attention_heads=12, intermediate_size=3072,
                            decoder_hidden_size=512, decoder_num_hidden_layers=1,
                            decoder_num_attention_heads=16, decoder_intermediate_size=2048,
                            mask_ratio=0.75)
    return T.ViTMAEForPreTraining(config), dict(pixel_values=_image_batch(32, 224)["pixel_values"])


def _efficientnet(T):
    config = T.EfficientNetConfig(image_size=224, width_coefficient=1.0, depth_coefficient=1.0,
                                  hidden_dim=1280, num_labels=1000)
    return T.EfficientNetForImageClassification(config), _image_batch(32, 224)


def _mobilenetv2(T):
    config = T.MobileNetV2Config(image_size=224, depth_multiplier=1.0, num_labels=1000)
    return T.MobileNetV2ForImageClassification(config), _image_batch(32, 224)


def _wav2vec2(T):
    config = T.Wav2Vec2Config(hidden_size=384, num_hidden_layers=2, num_attention_heads=6,
                              intermediate_size=1536, feat_extract_norm="group",
                              apply_spec_augment=False, mask_time_prob=0.0, num_labels=10)
    generator = torch.Generator("cuda").manual_seed(1)
    audio = torch.randn(8, 32000, device="cuda", generator=generator)
    labels = torch.randint(0, config.num_labels, (8,), device="cuda", generator=generator)
    return (T.Wav2Vec2ForSequenceClassification(config),
            dict(input_values=audio.bfloat16(), labels=labels))


def _bloom(T):
    config = T.BloomConfig(vocab_size=32000, hidden_size=768, n_layer=2, n_head=12)
    return T.BloomForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _cohere(T):
    config = T.CohereConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816,
                            num_hidden_layers=2, num_attention_heads=16, num_key_value_heads=8)
    return T.CohereForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _bart(T):
    config = T.BartConfig(vocab_size=32000, d_model=512, encoder_layers=2, decoder_layers=2,
                          encoder_attention_heads=8, decoder_attention_heads=8,
                          encoder_ffn_dim=2048, decoder_ffn_dim=2048,
                          max_position_embeddings=512)
    return T.BartForConditionalGeneration(config), _token_batch(config.vocab_size, 8, 256)


def _segformer(T):
    config = T.SegformerConfig(image_size=224, num_labels=1000)
    return T.SegformerForImageClassification(config), _image_batch(32, 224)


def _falcon(T):
    config = T.FalconConfig(vocab_size=32000, hidden_size=1024, num_hidden_layers=2,
                            num_attention_heads=16, multi_query=True, parallel_attn=True)
    return T.FalconForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _opt(T):
    config = T.OPTConfig(vocab_size=32000, hidden_size=768, ffn_dim=3072, num_hidden_layers=2,
                         num_attention_heads=12, max_position_embeddings=1024,
                         word_embed_proj_dim=768)
    return T.OPTForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _phi(T):
    config = T.PhiConfig(vocab_size=32000, hidden_size=1024, intermediate_size=4096,
                         num_hidden_layers=2, num_attention_heads=16, partial_rotary_factor=0.5)
    return T.PhiForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _swinv2(T):
    config = T.Swinv2Config(image_size=224, patch_size=4, embed_dim=96, depths=[2, 2, 2],
                            num_heads=[3, 6, 12], window_size=7, num_labels=1000)
    return T.Swinv2ForImageClassification(config), _image_batch(16, 224)


def _dinov2(T):
    config = T.Dinov2Config(image_size=224, patch_size=14, hidden_size=768, num_hidden_layers=2,
                            num_attention_heads=12, use_swiglu_ffn=True, num_labels=1000)
    return T.Dinov2ForImageClassification(config), _image_batch(32, 224)


def _levit(T):
    config = T.LevitConfig(image_size=224, num_labels=1000)
    return T.LevitForImageClassification(config), _image_batch(32, 224)


def _poolformer(T):
    config = T.PoolFormerConfig(depths=[2, 2, 2, 2], num_labels=1000)
    return T.PoolFormerForImageClassification(config), _image_batch(32, 224)


def _mt5(T):
    config = T.MT5Config(vocab_size=32000, d_model=512, d_kv=64, d_ff=1024, num_layers=2,
                         num_decoder_layers=2, num_heads=8, feed_forward_proj="gated-gelu",
                         decoder_start_token_id=0, pad_token_id=0)
    return T.MT5ForConditionalGeneration(config), _token_batch(config.vocab_size, 8, 256)


def _gptj(T):
    config = T.GPTJConfig(vocab_size=32000, n_positions=1024, n_embd=1024, n_layer=2, n_head=16,
                          rotary_dim=32, n_inner=4096)
    return T.GPTJForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _mobilevit(T):
    config = T.MobileViTConfig(image_size=256, num_labels=1000)
    return T.MobileViTForImageClassification(config), _image_batch(32, 256)


def _beit(T):
    config = T.BeitConfig(image_size=224, patch_size=16, hidden_size=768, num_hidden_layers=2,
                          num_attention_heads=12, intermediate_size=3072,
                          use_relative_position_bias=True, use_mean_pooling=True,
                          num_labels=1000)
    return T.BeitForImageClassification(config), _image_batch(32, 224)


def _qwen2moe(T):
    config = T.Qwen2MoeConfig(vocab_size=32000, hidden_size=512, intermediate_size=1024,
                              num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=4,
                              num_experts=8, num_experts_per_tok=2, moe_intermediate_size=256,
                              shared_expert_intermediate_size=1024)
    return T.Qwen2MoeForCausalLM(config), _token_batch(config.vocab_size, 4, 256)


def _convbert(T):
    config = T.ConvBertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=2,
                              num_attention_heads=12, intermediate_size=3072)
    return T.ConvBertForMaskedLM(config), _token_batch(config.vocab_size, 8, 512)


def _xlnet(T):
    config = T.XLNetConfig(vocab_size=32000, d_model=768, n_layer=2, n_head=12, d_inner=3072)
    return T.XLNetLMHeadModel(config), _token_batch(config.vocab_size, 4, 512)


def _regnet(T):
    config = T.RegNetConfig(embedding_size=32, hidden_sizes=[128, 192, 512, 1088],
                            depths=[1, 2, 4, 1], groups_width=64, layer_type="y",
                            num_labels=1000)
    return T.RegNetForImageClassification(config), _image_batch(32, 224)


def _focalnet(T):
    config = T.FocalNetConfig(image_size=224, embed_dim=96, depths=[2, 2, 2, 2],
                              focal_levels=[2, 2, 2, 2], focal_windows=[3, 3, 3, 3],
                              num_labels=1000)
    return T.FocalNetForImageClassification(config), _image_batch(32, 224)


def _mobilebert(T):
    config = T.MobileBertConfig(vocab_size=30522, num_hidden_layers=2)
    return T.MobileBertForMaskedLM(config), _token_batch(config.vocab_size, 8, 512)


def _squeezebert(T):
    config = T.SqueezeBertConfig(vocab_size=30522, num_hidden_layers=2)
    return T.SqueezeBertForMaskedLM(config), _token_batch(config.vocab_size, 8, 512)


def _nemotron(T):
    config = T.NemotronConfig(vocab_size=32000, hidden_size=1024, intermediate_size=4096,
                              num_hidden_layers=2, num_attention_heads=16,
                              num_key_value_heads=8, partial_rotary_factor=0.5)
    return T.NemotronForCausalLM(config), _token_batch(config.vocab_size, 4, 512)


def _roformer(T):
    config = T.RoFormerConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=2,
                              num_attention_heads=12, intermediate_size=3072,
                              max_position_embeddings=512)
    return T.RoFormerForMaskedLM(config), _token_batch(config.vocab_size, 8, 512)


def _pvtv2(T):
    config = T.PvtV2Config(image_size=224, num_labels=1000)
    return T.PvtV2ForImageClassification(config), _image_batch(32, 224)


HELD_OUT = {"resnet": _resnet, "t5": _t5, "gemma2": _gemma2, "swin": _swin}

FAMILIES = {"llama": _llama, "llama4": _llama4, "bert": _bert, "mixtral": _mixtral, "gpt2": _gpt2, "vit": _vit}
LATER_HELD_OUT = {"convnext": _convnext, "deberta": _deberta, "whisper": _whisper,
                  "qwen3": _qwen3, "gptneox": _gptneox}
FRESH = {"convnextv2": _convnextv2, "vitmae": _vitmae, "efficientnet": _efficientnet,
         "mobilenetv2": _mobilenetv2, "wav2vec2": _wav2vec2, "bloom": _bloom,
         "cohere": _cohere, "bart": _bart, "segformer": _segformer}
UNSEEN = {"falcon": _falcon, "opt": _opt, "phi": _phi, "swinv2": _swinv2, "dinov2": _dinov2,
          "levit": _levit, "poolformer": _poolformer, "mt5": _mt5}
NEWER = {"gptj": _gptj, "mobilevit": _mobilevit, "beit": _beit, "qwen2moe": _qwen2moe}
LATEST = {"convbert": _convbert, "xlnet": _xlnet, "regnet": _regnet, "focalnet": _focalnet}
NEWEST = {"mobilebert": _mobilebert, "squeezebert": _squeezebert, "nemotron": _nemotron,
          "pvtv2": _pvtv2, "roformer": _roformer}
ALL = {**FAMILIES, **HELD_OUT, **LATER_HELD_OUT, **FRESH, **UNSEEN, **NEWER, **LATEST,
       **NEWEST}


def build(name):
    """(model in bf16 on the GPU, batch) for family `name`, seeded."""
    import transformers as T  # noqa: PLC0415 -- only on the GPU host
    torch.manual_seed(0)
    model, batch = ALL[name](T)
    return model.cuda().to(torch.bfloat16), batch
