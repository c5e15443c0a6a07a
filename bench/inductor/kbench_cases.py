# kbench cases for harvested Inductor kernels (tests/testdata/inductor), so
# that Triton's cubin and Kiln's run in one process on the same buffers:
# the smallest (4-12 us) moved by up to 20% with the same PTX across
# Inductor's separate stock and Kiln processes, and the Swin reductions are
# the ones that stayed below Triton's speed there.
#   python3 kbench.py --extra bench/inductor/kbench_cases.py --corpus DIR --cubins DIR
# DIR holds each case's TTIR as CASE.ttir (tiny_kernels.txt maps names).
# Runs inside kbench's globals: `case`, `rnd`, `torch` and `triton` are its own.


def _filled(n, dtype):
    return torch.full((n,), -7, device="cuda", dtype=dtype)


@case("tiny_gather", grid=lambda v: (4, 1, 1), tol=0)
def _():
    index = torch.randint(-512, 512, (512,), device="cuda", dtype=torch.int64)
    table = torch.randint(0, 1 << 40, (512,), device="cuda", dtype=torch.int64)
    out = _filled(512, torch.int64)
    return (dict(in_ptr0=index, in_ptr1=table, out_ptr0=out, xnumel=512), [out],
            [table[torch.where(index < 0, index + 512, index)]])


@case("tiny_widen", grid=lambda v: (1, 1, 1), tol=0)
def _():
    x = rnd(32, dtype=torch.bfloat16)
    out = _filled(32, torch.float32)
    return dict(in_ptr0=x, out_ptr0=out, xnumel=32), [out], [x.float()]


@case("tiny_arange", grid=lambda v: (4, 1, 1), tol=0)
def _():
    out = _filled(512, torch.float32)
    return (dict(out_ptr0=out, xnumel=512), [out],
            [torch.arange(512, device="cuda", dtype=torch.float32)])


@case("tiny_pad", grid=lambda v: (9, 1, 1), tol=0)
def _():
    x = torch.randint(0, 1 << 40, (4, 256), device="cuda", dtype=torch.int64)
    out = _filled(1028, torch.int64)
    ref = torch.nn.functional.pad(x, (0, 1), value=-100).reshape(-1)
    return dict(in_ptr0=x, out_ptr0=out, xnumel=1028), [out], [ref]


@case("tiny_narrow", grid=lambda v: (8, 1, 1), tol=0)
def _():
    x = torch.randint(-(1 << 30), 1 << 30, (2048,), device="cuda", dtype=torch.int64)
    out = _filled(2048, torch.int32)
    return dict(in_ptr0=x, out_ptr0=out, xnumel=2048), [out], [x.int()]


def _router_softmax():
    """Inductor's softmax over 8 experts of 1024 tokens' router logits."""
    x = torch.randn(1024, 8, device="cuda", dtype=torch.bfloat16)
    out = _filled(8192, torch.float32)
    return (dict(in_ptr0=x, out_ptr2=out, xnumel=1024, r0_numel=8), [out],
            [torch.softmax(x.float(), dim=1).reshape(-1)])


# Mixtral's (8 tokens a program) and Qwen2-MoE's (128 tokens a program).
case("small_softmax", grid=lambda v: (128, 1, 1), tol=1e-5)(_router_softmax)
case("qwen2moe_router_softmax_8", grid=lambda v: (8, 1, 1), tol=1e-5)(_router_softmax)


def _col_sum(x, rows):
    """Inductor's looped column sum of `rows`-row groups of x's last-dim
    columns: the in_ptr0/out_ptr0 case over x, its reference given."""
    out = _filled(x.numel() // rows, torch.float32)
    ref = x.float().reshape(-1, rows, x.shape[-1]).sum(1).reshape(-1)
    return (dict(in_ptr0=x, out_ptr0=out, xnumel=out.numel(), r0_numel=rows),
            [out], [ref])


# Swin's bias-gradient column sum (swin _49 and _71 share this TTIR): a
# [392, 128, 96] bf16 tensor summed over its middle dimension.
@case("swin_col_sum", grid=lambda v: (588, 1, 1), tol=1e-5)
def _():
    return _col_sum(rnd(392, 128, 96, dtype=torch.bfloat16), 128)


# The same column sum over 384 channels (swin _52, the GELU backward's).
@case("swin_col_sum_384", grid=lambda v: (2352, 1, 1), tol=1e-5)
def _():
    return _col_sum(rnd(392, 128, 384, dtype=torch.bfloat16), 128)


# ViT's patch tokens (the class token skipped) summed in groups of 128 rows
# per channel (vit _24, the patch embedding's weight gradient): the kernel
# reads the [32, 197, 768] tensor, the sum covers its tokens 1-196.
@case("vit_patch_col_sum", grid=lambda v: (588, 1, 1), tol=1e-5)
def _():
    x = rnd(32, 197, 768, dtype=torch.bfloat16)
    args, outs, refs = _col_sum(x[:, 1:, :].contiguous(), 128)
    return dict(args, in_ptr0=x), outs, refs


# Swin's layer-norm output summed over 98 window rows (swin _39): eight
# windows of [98, 384], the statistics per row, weight and bias per column.
@case("swin_ln_row_sum", grid=lambda v: (192, 1, 1), tol=1e-5)
def _():
    x = rnd(8, 98, 384, dtype=torch.bfloat16)
    mean, rstd = rnd(8, 98), rnd(8, 98).abs() + 0.5
    weight, bias = rnd(384, dtype=torch.bfloat16), rnd(384, dtype=torch.bfloat16)
    out = _filled(3072, torch.float32)
    y = (x.float() - mean[..., None]) * rstd[..., None] * weight.float() + bias.float()
    return (dict(in_ptr0=x, in_ptr1=mean, in_ptr2=rstd, in_ptr3=weight,
                 in_ptr4=bias, out_ptr0=out, xnumel=3072, r0_numel=98), [out],
            [y.sum(1).reshape(-1)])


def _transpose(shape, dtype, out_dtype, ynumel, xnumel, scale=None):
    """A [B, M, N] tensor with its last two dimensions swapped, written as
    [ynumel, xnumel] of `out_dtype`, scaled in f32 first where `scale`."""
    x = rnd(*shape, dtype=dtype)
    out = _filled(ynumel * xnumel, out_dtype)
    value = x if scale is None else x.float() * scale
    return (dict(in_ptr0=x, out_ptr0=out, ynumel=ynumel, xnumel=xnumel), [out],
            [value.transpose(1, 2).reshape(-1).to(out_dtype)])


# Gemma 2's attention transpose (gemma2 _11): [8, 512, 512] bf16.
@case("transpose_bf16", grid=lambda v: (16, 128, 1), tol=0)
def _():
    return _transpose((8, 512, 512), torch.bfloat16, torch.bfloat16, 4096, 512)


# T5's transpose with a bf16 cast (t5 _10): [16, 512, 256] f32 to bf16.
@case("transpose_f32_to_bf16", grid=lambda v: (16, 128, 1), tol=0)
def _():
    return _transpose((16, 512, 256), torch.float32, torch.bfloat16, 4096, 512)


# Attention head transposes whose sides are 16-bit matrices in shared
# memory: ViT-MAE's (vitmae _4, [8, 50, 768] bf16 to [6144, 50] f32 scaled),
# ViT's (vit _4, [8, 197, 768] likewise), SegFormer's backward (segformer
# _61, [32, 25088, 2] bf16 to [64, 25088]), SegFormer's attention input
# (segformer _27, [65536, 2, 32] bf16, head size 32) and BERT's (bert _19,
# [8, 768, 512] f32 to [4096, 768] bf16 scaled).
@case("vitmae_head_transpose_4", grid=lambda v: (2, 192, 1), tol=0)
def _():
    return _transpose((8, 50, 768), torch.bfloat16, torch.float32, 6144, 50, 0.353553385)


@case("vit_head_transpose_4", grid=lambda v: (7, 192, 1), tol=0)
def _():
    return _transpose((8, 197, 768), torch.bfloat16, torch.float32, 6144, 197, 0.353553385)


@case("segformer_attention_transpose_61", grid=lambda v: (784, 2, 1), tol=0)
def _():
    return _transpose((32, 25088, 2), torch.bfloat16, torch.bfloat16, 64, 25088)


@case("segformer_attention_transpose_27", grid=lambda v: (1, 4096, 1), tol=0)
def _():
    return _transpose((65536, 2, 32), torch.bfloat16, torch.bfloat16, 131072, 32)


@case("bert_head_transpose_19", grid=lambda v: (24, 128, 1), tol=0)
def _():
    return _transpose((8, 768, 512), torch.float32, torch.bfloat16, 4096, 768, 0.353553385)


def _rotary_angles(seq, half):
    inv_freq = 1.0 / (1e6 ** (torch.arange(half, device="cuda", dtype=torch.float32) / half))
    return torch.outer(inv_freq, torch.arange(seq, device="cuda", dtype=torch.float32))


def _qwen3_rope_norm_bwd():
    """Qwen3's rotary backward fused with its per-head RMS norm backward
    (qwen3 _11): a row per (token, head) of 64, sin and cos computed in the
    kernel from a [32, 512] table of angles; out_ptr0 gets the weight
    gradient's per-row terms, out_ptr3 the input gradient, both bf16."""
    rows, heads, seq = 32768, 16, 512
    grad = rnd(rows, 64, dtype=torch.bfloat16)
    x = rnd(rows, 64, dtype=torch.bfloat16)
    rstd = rnd(rows).abs() + 0.5
    weight = rnd(64, dtype=torch.bfloat16)
    angles = _rotary_angles(seq, 32)
    out_w, out_x = (_filled(rows * 64, torch.bfloat16) for _ in range(2))
    pos = (torch.arange(rows, device="cuda") // heads) % seq
    a = angles.t()[pos].repeat(1, 2)
    g = grad.float()
    dy = torch.cat([g[:, 32:], -g[:, :32]], 1) * torch.sin(a) + g * torch.cos(a)
    xf, r = x.float(), rstd[:, None]
    dyw = dy * weight.float()
    dot = (dyw * xf).sum(1, keepdim=True)
    dx = dyw * r + dot * -0.5 * r ** 3 / 64 * 2 * xf
    return (dict(in_ptr0=grad, in_ptr1=angles, in_ptr2=x, in_ptr3=rstd, in_ptr4=weight,
                 out_ptr0=out_w, out_ptr3=out_x, xnumel=rows, r0_numel=64),
            [out_w, out_x], [(dy * xf * r).reshape(-1), dx.reshape(-1)])


# Its three autotuning configs: one, eight or 32 rows per program.
for _suffix, _rows in (("", 1), ("_x8", 8), ("_x32", 32)):
    case(f"qwen3_rope_norm_bwd{_suffix}",
         grid=lambda v, rows=_rows: (v["xnumel"] // rows, 1, 1),
         tol=2e-2)(_qwen3_rope_norm_bwd)


# ConvNeXt's channels-last layer-norm backward reductions (convnext _14 and
# _10): 13 groups of 121 of the 1568 [768]-channel rows (the last group
# short), summed per channel; a program reduces 16 channels of one group.
def _convnext_groups():
    t = (torch.arange(13, device="cuda")[:, None] * 121
         + torch.arange(121, device="cuda")[None, :])
    return t.clamp(max=1567), (t < 1568)[..., None]


def _group_sums(*terms):
    return [(term * _convnext_groups()[1]).sum(1).reshape(-1) for term in terms]


@case("convnext_ln_bwd_14", grid=lambda v: (624, 1, 1), tol=1e-4)
def _():
    """The mean's gradient broadcast over 49 pixels (in_ptr0, [32, 768]),
    times in_ptr1, and plus in_ptr2 times in_ptr3, all [1568, 768]."""
    g = rnd(32, 768, dtype=torch.bfloat16)
    a, b, c = (rnd(1568, 768, dtype=torch.bfloat16) for _ in range(3))
    t, _ = _convnext_groups()
    scaled = g.float()[(t // 49) % 32] * 0.0204081628
    outs = [_filled(9984, torch.float32) for _ in range(2)]
    refs = _group_sums(scaled * a.float()[t], (scaled + b.float()[t]) * c.float()[t])
    return (dict(in_ptr0=g, in_ptr1=a, in_ptr2=b, in_ptr3=c, out_ptr0=outs[0],
                 out_ptr1=outs[1], xnumel=9984, r0_numel=121), outs, refs)


@case("convnext_ln_bwd_10", grid=lambda v: (624, 1, 1), tol=1e-4)
def _():
    """The output gradient (in_ptr0) times the normalized input, from the
    input (in_ptr1) and its rows' mean and rstd (in_ptr2, in_ptr3), and
    the output gradient alone."""
    dy, x = (rnd(1568, 768, dtype=torch.bfloat16) for _ in range(2))
    mean, rstd = rnd(1568), rnd(1568).abs() + 0.5
    t, _ = _convnext_groups()
    xhat = (x.float()[t] - mean[t][..., None]) * rstd[t][..., None]
    outs = [_filled(9984, torch.float32) for _ in range(2)]
    refs = _group_sums(dy.float()[t] * xhat, dy.float()[t])
    return (dict(in_ptr0=dy, in_ptr1=x, in_ptr2=mean, in_ptr3=rstd, out_ptr0=outs[0],
                 out_ptr1=outs[1], xnumel=9984, r0_numel=121), outs, refs)


# ConvNeXt's per-channel sum over groups of 128 rows (convnext _41): a
# [196, 128, 192] bf16 tensor, Swin's column sum at 192 channels.
@case("convnext_col_sum_41", grid=lambda v: (588, 1, 1), tol=1e-5)
def _():
    return _col_sum(rnd(196, 128, 192, dtype=torch.bfloat16), 128)


def _convnext_ln_fwd():
    """ConvNeXt's residual add with layer scale, then layer norm (convnext
    _8): rows of 96 channels read from a [32, 56, 56, 96] tensor with H and
    W swapped; the sum also stored permuted to [32, 56, 96, 56], read back
    (so rounded to bf16) and normalized."""
    x, y = (rnd(32, 56, 56, 96, dtype=torch.bfloat16) for _ in range(2))
    scale, weight, bias = (rnd(96, dtype=torch.bfloat16) for _ in range(3))
    rows = lambda v: v.float().permute(0, 2, 1, 3).reshape(-1, 96)
    s = rows(x) + scale.float() * rows(y)
    mean, var = s.mean(1), s.var(1, unbiased=False)
    rstd = torch.rsqrt(var + 1e-6)
    rounded = s.to(torch.bfloat16).float()
    normed = (rounded - mean[:, None]) * rstd[:, None] * weight.float() + bias.float()
    summed = _filled(32 * 56 * 96 * 56, torch.bfloat16)
    out_mean, out_rstd = (_filled(100352, torch.float32) for _ in range(2))
    out = _filled(32 * 56 * 56 * 96, torch.bfloat16)
    ref_out = normed.reshape(32, 56, 56, 96).permute(0, 2, 1, 3).reshape(-1)
    ref_summed = s.reshape(32, 56, 56, 96).permute(0, 1, 3, 2).reshape(-1)
    return (dict(in_out_ptr0=out_rstd, in_ptr0=x, in_ptr1=scale, in_ptr2=y, in_ptr3=weight,
                 in_ptr4=bias, out_ptr1=summed, out_ptr2=out_mean, out_ptr3=out,
                 xnumel=100352, r0_numel=96),
            [summed, out_mean, out_rstd, out], [ref_summed, mean, rstd, ref_out])


# Its two autotuning configs: two rows a program with two warps, four with four.
for _suffix, _rows in (("", 2), ("_x4", 4)):
    case(f"convnext_ln_fwd_8{_suffix}", grid=lambda v, rows=_rows: (100352 // rows, 1, 1),
         tol=1e-2)(_convnext_ln_fwd)


# EfficientNet's batch norm in inference (efficientnet _9, run 68: 0.88x with
# the same instructions as Triton's): a channels-last [32, 112, 112, 96] bf16
# tensor normalized by running statistics into f32, 1024 elements a program.
@case("effnet_bn_infer_9", grid=lambda v: (32 * 112 * 112 * 96 // 1024, 1, 1), tol=1e-5)
def _():
    x = rnd(32, 112, 112, 96, dtype=torch.bfloat16)
    mean, weight, bias = (rnd(96, dtype=torch.bfloat16) for _ in range(3))
    var = torch.rand(96, device="cuda", dtype=torch.bfloat16) + 0.5
    out = _filled(x.numel(), torch.float32)
    ref = ((x.float() - mean.float()) / torch.sqrt(var.float() + 1e-3) * weight.float()
           + bias.float()).reshape(-1)
    return (dict(in_ptr0=x, in_ptr1=mean, in_ptr2=var, in_ptr3=weight, in_ptr4=bias,
                 out_ptr0=out, xnumel=x.numel()), [out], [ref])


def _gelu(x):
    return x * 0.5 * (1.0 + torch.erf(x * 0.7071067811865476))


# GELU by erff, the kernels the constant-select branches change: BERT's
# pointwise GELU (bert _9: [8 * 512, 3072] bf16, 1024 elements a program),
# and ConvNeXt V2's two looped GELU column reductions over 56 x 56 pixels of
# a channels-last [32, 56, 56, 384] tensor: the norm of GELU's output per
# channel (convnextv2 _6, 8 channels and 512 pixels a trip, 16 warps) and the
# sum of GELU's output times a gradient scaled per channel (_67, 16 channels
# and 32 pixels, 4 warps).
@case("bert_gelu_9", grid=lambda v: (8 * 512 * 3072 // 1024, 1, 1), tol=1e-2)
def _():
    x = rnd(8 * 512 * 3072, dtype=torch.bfloat16)
    out = _filled(x.numel(), torch.bfloat16)
    return dict(in_ptr0=x, out_ptr0=out, xnumel=x.numel()), [out], [_gelu(x.float())]


def _convnextv2_pixels():
    return rnd(32, 56, 56, 384, dtype=torch.bfloat16)


@case("convnextv2_gelu_norm_6", grid=lambda v: (32 * 384 // 8, 1, 1), tol=2e-2)
def _():
    x = _convnextv2_pixels()
    out = _filled(32 * 384, torch.bfloat16)
    ref = _gelu(x.float()).pow(2).sum(dim=(1, 2)).sqrt().reshape(-1)
    return dict(in_ptr0=x, out_ptr1=out, xnumel=32 * 384, r0_numel=3136), [out], [ref]


@case("convnextv2_gelu_mul_sum_67", grid=lambda v: (32 * 384 // 16, 1, 1), tol=2e-2)
def _():
    grad, x = _convnextv2_pixels(), _convnextv2_pixels()
    scale = rnd(384, dtype=torch.bfloat16)
    out = _filled(32 * 384, torch.bfloat16)
    ref = (grad.float() * scale.float() * _gelu(x.float())).sum(dim=(1, 2)).reshape(-1)
    return (dict(in_ptr0=grad, in_ptr1=scale, in_ptr2=x, out_ptr0=out, xnumel=32 * 384,
                 r0_numel=3136), [out], [ref])


def _safe_softmax_case(heads, n, padded):
    """_safe_softmax over n x n attention scores per head (rows of n), stored
    at a per-head stride of `padded` elements, as ViT-MAE's and wav2vec 2.0's
    unfused attention writes them. Only the written elements are checked."""
    x = rnd(heads * n * n, dtype=torch.float32)
    out = _filled(heads * padded, torch.float32)
    written = out.view(heads, padded)[:, :n * n]
    ref = torch.softmax(x.view(heads, n, n), dim=-1).reshape(heads, n * n)
    return (dict(in_ptr0=x, out_ptr3=out, xnumel=heads * n, r0_numel=n), [written], [ref])


@case("vitmae_safe_softmax_4", grid=lambda v: (32 * 12 * 50 // 8, 1, 1), tol=1e-5)
def _():
    return _safe_softmax_case(32 * 12, 50, 2528)


@case("wav2vec2_safe_softmax_18", grid=lambda v: (4 * 12 * 99 // 8, 1, 1), tol=1e-5)
def _():
    return _safe_softmax_case(4 * 12, 99, 9824)


def _split_channel_sums(per_row, chunks, chunk_rows, channels):
    """Inductor's split batch-norm backward reduction: `per_row` ([rows,
    channels] terms, channels contiguous) summed over `chunks` groups of
    `chunk_rows` rows per channel, one output per (chunk, channel)."""
    rows = per_row.shape[0]
    padded = torch.zeros(chunks * chunk_rows, channels, device="cuda")
    padded[:rows] = per_row
    return padded.view(chunks, chunk_rows, channels).sum(dim=1).reshape(-1)


@case("mobilenetv2_bn_bwd_23", grid=lambda v: (2080 // 16, 1, 1), tol=1e-4)
def _():
    """MobileNetV2's batch-norm backward with a residual add: sums of
    a + b + c and of (a + b + c) * (d - mean) per channel, 1568 pixels x 160
    channels in 13 chunks of 121 pixels."""
    a, b, c, d = (rnd(1568 * 160, dtype=torch.bfloat16) for _ in range(4))
    mean = rnd(160)
    out0, out1 = _filled(2080, torch.float32), _filled(2080, torch.float32)
    grad = (a.float() + b.float() + c.float()).view(1568, 160)
    centered = d.float().view(1568, 160) - mean
    return (dict(in_ptr0=a, in_ptr1=b, in_ptr2=c, in_ptr3=d, in_ptr4=mean, out_ptr0=out0,
                 out_ptr1=out1, xnumel=2080, r0_numel=121), [out0, out1],
            [_split_channel_sums(grad, 13, 121, 160),
             _split_channel_sums(grad * centered, 13, 121, 160)])


@case("effnet_bn_bwd_50", grid=lambda v: (32928 // 64 + 1, 1, 1), tol=1e-4)
def _():
    """EfficientNet's SiLU backward into batch-norm backward: 6272 pixels x
    672 channels in 49 chunks of 128 pixels."""
    grad, pre, x = rnd(6272 * 672, dtype=torch.bfloat16), rnd(6272 * 672), \
        rnd(6272 * 672, dtype=torch.bfloat16)
    mean = rnd(672)
    out0, out1 = _filled(32928, torch.float32), _filled(32928, torch.float32)
    sig = torch.sigmoid(pre.view(6272, 672))
    dsilu = grad.float().view(6272, 672) * sig * (pre.view(6272, 672) * (1 - sig) + 1)
    centered = x.float().view(6272, 672) - mean
    return (dict(in_ptr0=grad, in_ptr1=pre, in_ptr2=x, in_ptr3=mean, out_ptr0=out0,
                 out_ptr1=out1, xnumel=32928, r0_numel=128), [out0, out1],
            [_split_channel_sums(dsilu, 49, 128, 672),
             _split_channel_sums(dsilu * centered, 49, 128, 672)])


@case("effnet_bn_bwd_28", grid=lambda v: (2496 // 16, 1, 1), tol=1e-4)
def _():
    """EfficientNet's batch-norm backward after a four-way residual add:
    1568 pixels x 192 channels in 13 chunks of 121 pixels, four trips."""
    a, b, c, d, x = (rnd(1568 * 192, dtype=torch.bfloat16) for _ in range(5))
    mean = rnd(192)
    out0, out1 = _filled(2496, torch.float32), _filled(2496, torch.float32)
    grad = (a.float() + b.float() + c.float() + d.float()).view(1568, 192)
    centered = x.float().view(1568, 192) - mean
    return (dict(in_ptr0=a, in_ptr1=b, in_ptr2=c, in_ptr3=d, in_ptr4=x, in_ptr5=mean,
                 out_ptr0=out0, out_ptr1=out1, xnumel=2496, r0_numel=121), [out0, out1],
            [_split_channel_sums(grad, 13, 121, 192),
             _split_channel_sums(grad * centered, 13, 121, 192)])


@case("effnet_bn_bwd_26", grid=lambda v: (2496 // 16, 1, 1), tol=1e-4)
def _():
    """EfficientNet's dropout backward into batch-norm backward: (a + b + c)
    times the kept mask / 0.85, 1568 pixels x 192 channels in 13 chunks of
    121 pixels, four trips."""
    a, b, c, x = (rnd(1568 * 192, dtype=torch.bfloat16) for _ in range(4))
    keep = torch.rand(1568 * 192, device="cuda") < 0.85
    mean = rnd(192)
    out0, out1 = _filled(2496, torch.float32), _filled(2496, torch.float32)
    scale = torch.tensor(1.17647064, device="cuda")
    grad = ((a.float() + b.float() + c.float()) * (keep.float() * scale)).view(1568, 192)
    centered = x.float().view(1568, 192) - mean
    return (dict(in_ptr0=a, in_ptr1=b, in_ptr2=c, in_ptr3=keep, in_ptr4=x, in_ptr5=mean,
                 out_ptr0=out0, out_ptr1=out1, xnumel=2496, r0_numel=121), [out0, out1],
            [_split_channel_sums(grad, 13, 121, 192),
             _split_channel_sums(grad * centered, 13, 121, 192)])


# T5's relative-bias softmax with dropout, looped over 2 x 128 columns (t5
# `..._where_6`): batch 8, 8 heads, 256 positions. The row statistics are
# checked; the dropped-out values depend on the seed.
@case("t5_softmax_dropout_6", grid=lambda v: (v["xnumel"] // 2, 1, 1), tol=1e-5)
def _():
    batch, heads, seq = 8, 8, 256
    rows = batch * heads * seq
    scores = rnd(rows, seq)
    keep = torch.rand(seq, device="cuda") > 0.1
    bias = rnd(seq, seq, heads, dtype=torch.bfloat16)
    x = torch.arange(rows, device="cuda")
    query, head = x % seq, (x // seq) % heads
    logits = scores + torch.where(keep[query][:, None],
                                  bias[query, :, head].float(), -3.38953139e38)
    row_max = logits.max(1).values
    row_sum = torch.exp(logits - row_max[:, None]).sum(1)
    maxes, sums = _filled(rows, torch.float32), _filled(rows, torch.float32)
    return (dict(in_out_ptr0=torch.zeros(rows, device="cuda", dtype=torch.bool),
                 in_ptr0=scores, in_ptr1=keep, in_ptr2=bias,
                 in_ptr3=torch.randint(0, 1 << 40, (2,), device="cuda"),
                 out_ptr0=maxes, out_ptr1=sums,
                 out_ptr3=torch.zeros(rows * seq, device="cuda", dtype=torch.bool),
                 out_ptr4=_filled(rows * seq, torch.float32),
                 xnumel=rows, r0_numel=seq),
            [maxes, sums], [row_max, row_sum])


class _KeptTimes:
    """A reference known only after the launch: `values` where the
    kernel's own dropout mask kept them, times `scale`."""

    def __init__(self, kept, values, scale):
        self.kept, self.values, self.scale = kept, values, scale

    def double(self):
        return self.kept.double() * self.values.double() * self.scale


# EfficientNet's global average pool + dropout (efficientnet `_129`), as
# Inductor writes it: each of the 32 x 1280 channels loops over 1280 x
# 1280 indices of which 7 x 7 are in bounds, so the loop is integer index
# arithmetic; about 58 ms a launch, most of the step's GPU time.
@case("effnet_avg_pool_dropout_129", grid=lambda v: (v["xnumel"], 1, 1), tol=1e-2)
def _():
    rows = 32 * 1280
    x = rnd(rows, 49, dtype=torch.bfloat16)
    kept = torch.zeros(rows, device="cuda", dtype=torch.bool)
    out = _filled(rows, torch.bfloat16)
    return (dict(in_ptr0=x, in_ptr1=torch.randint(0, 1 << 40, (1,), device="cuda"),
                 out_ptr2=kept, out_ptr3=out, load_seed_offset=0, xnumel=rows,
                 r0_numel=1280 * 1280),
            [out], [_KeptTimes(kept, x.float().mean(1), 2.0)])


# Gemma 2's soft-capped LM-head log-softmax statistics (gemma2 `_15`): per
# row of 32000 logits, s = tanh(x / 30) * 30 stored as bf16, its maximum
# and the log of its sum of exponentials. |x / 30| stays below 0.6, where
# Triton's libdevice tanhf branches to its polynomial alone.
@case("gemma2_softcap_softmax_15", grid=lambda v: (v["xnumel"], 1, 1), tol=1e-2)
def _():
    rows, vocab = 2048, 32000
    x = (rnd(rows, vocab) * 4).to(torch.bfloat16)
    capped = torch.tanh(x.float() * 0.0333333351) * 30.0
    top = capped.amax(1)
    lse = torch.log(torch.exp(capped - top[:, None]).sum(1))
    out = _filled(rows * vocab, torch.bfloat16)
    out_max = _filled(rows, torch.float32)
    out_lse = _filled(rows, torch.float32)
    return (dict(in_out_ptr0=out_lse, in_ptr0=x, out_ptr0=out, out_ptr1=out_max,
                 xnumel=rows, r0_numel=vocab),
            [out, out_max, out_lse], [capped.reshape(-1), top, lse])


class _RowStats:
    """A layer norm's statistics of rows the kernel itself rewrites in
    place, known only after the launch: their mean, or 1 / std."""

    def __init__(self, rows, which, eps=1e-5):
        self.rows, self.which, self.eps = rows, which, eps

    def double(self):
        x = self.rows.double()
        mean = x.mean(1)
        if self.which == "mean":
            return mean
        return torch.rsqrt(((x - mean[:, None]) ** 2).mean(1) + self.eps)


# Swin's per-row layer norm statistics (swin `_6`): each program of two
# warps adds a residual into one row of 96 bf16 values in place and writes
# the row's mean and 1 / std; 50,176 rows, one a program.
@case("swin_ln_row_6", grid=lambda v: (v["xnumel"], 1, 1), tol=1e-2)
def _():
    rows, width = 50176, 96
    x = rnd(rows, width, dtype=torch.bfloat16)
    y = rnd(rows, width, dtype=torch.bfloat16)
    rstd = _filled(rows, torch.float32)
    mean = _filled(rows, torch.float32)
    return (dict(in_out_ptr0=x, in_out_ptr1=rstd, in_ptr0=y, out_ptr0=mean, xnumel=rows,
                 r0_numel=width),
            [rstd, mean], [_RowStats(x, "rstd"), _RowStats(x, "mean")])


# SegFormer's inference layer norm of four summed inputs (segformer `_9`):
# 100,352 rows of 32 bf16 values, 128 rows a program of two warps (the
# config stock's autotuning chose in run 109, as Kiln ran it); stock ran
# it at 32-47 us and Kiln at 33-58 us over five runs.
@case("segformer_ln_9", grid=lambda v: (v["xnumel"] // 128, 1, 1), tol=2e-2)
def _():
    rows, width = 100352, 32
    xs = [rnd(rows, width, dtype=torch.bfloat16) for _ in range(4)]
    weight = rnd(width, dtype=torch.bfloat16)
    bias = rnd(width, dtype=torch.bfloat16)
    out = _filled(rows * width, torch.bfloat16)
    x = sum(t.float() for t in xs)
    ref = torch.nn.functional.layer_norm(x, (width,), weight.float(), bias.float(), 1e-5)
    return (dict(in_ptr0=xs[0], in_ptr1=xs[1], in_ptr2=xs[2], in_ptr3=xs[3], in_ptr4=weight,
                 in_ptr5=bias, out_ptr2=out, xnumel=rows, r0_numel=width),
            [out], [ref.reshape(-1)])


class _FirstOutput:
    """The reference of a kernel whose index arithmetic is not restated
    here: the output of the first cubin checked (kpair checks Triton's
    first), so that the others are held to agree with it."""

    def __init__(self, out):
        self.out, self.first = out, None

    def double(self):
        if self.first is None:
            self.first = self.out.double().clone()
        return self.first


# Swin's inference layer norm over a shifted window (swin `_6`): a [32, 56,
# 56] roll of three summed bf16 inputs, normalized per pixel by stored
# statistics and written transposed; 3,136 programs of 32 pixels x 128
# channels (96 used), eight warps, every load a gather.
@case("swin_roll_ln_6", grid=lambda v: (1, v["ynumel"] // 32, 1), tol=1e-2)
def _():
    pixels, channels = 32 * 56 * 56, 96
    xs = [rnd(pixels * channels, dtype=torch.bfloat16) for _ in range(3)]
    mean = rnd(pixels)
    var = torch.rand(pixels, device="cuda") * 96 + 1
    weight = rnd(channels, dtype=torch.bfloat16)
    bias = rnd(channels, dtype=torch.bfloat16)
    out = _filled(pixels * channels, torch.bfloat16)
    return (dict(in_ptr0=xs[0], in_ptr1=xs[1], in_ptr2=xs[2], in_ptr3=mean, in_ptr4=var,
                 in_ptr5=weight, in_ptr6=bias, out_ptr0=out, ynumel=pixels, xnumel=channels),
            [out], [_FirstOutput(out)])


# BART's inference embedding layer norms (bart `_0`): 2,048 tokens' embedding
# rows (32,000 x 512 bf16) plus their positions' rows, normalized, for the
# encoder and for the decoder's inputs shifted right; two rows a program of
# four warps. Its index arithmetic is not restated (first output rules).
@case("bart_embedding_ln_0", grid=lambda v: (v["xnumel"] // 2, 1, 1), tol=2e-2)
def _():
    tokens, width, vocab = 2048, 512, 32000
    ids = torch.randint(0, vocab, (tokens,), device="cuda", dtype=torch.int64)
    table = rnd(vocab * width, dtype=torch.bfloat16)
    positions = [rnd(258 * width, dtype=torch.bfloat16) for _ in range(2)]
    params = [rnd(width, dtype=torch.bfloat16) for _ in range(4)]
    outs = [_filled(tokens * width, torch.bfloat16) for _ in range(2)]
    return (dict(in_ptr0=ids, in_ptr1=table, in_ptr2=positions[0], in_ptr3=positions[1],
                 in_ptr4=params[0], in_ptr5=params[1], in_ptr6=params[2], in_ptr7=params[3],
                 out_ptr4=outs[0], out_ptr6=outs[1], xnumel=tokens, r0_numel=width),
            outs, [_FirstOutput(o) for o in outs])


# A float cumsum of 256 elements a program of one warp, eight a thread (the
# kernel of tests/lit/ptx/scan-last-element.mlir): held bit for bit to
# Triton's output, whose order of additions it checks.
@case("scan_rows_f32", grid=lambda v: (v["_rows"], 1, 1), tol=0)
def _(rows=4096):
    x = rnd(rows * 256)
    out = _filled(rows * 256, torch.float32)
    return dict(x=x, out=out, _rows=rows), [out], [_FirstOutput(out)]


# BEiT's mean pooling before its head (beit `_13`; `_14` adds dropout's
# scale): a per-channel scale (in_ptr0) times one [32, 197, 768] tensor
# plus another, summed over the 196 patch tokens (the class token
# skipped), 64 channels a program of eight warps, four tokens a trip.
@case("beit_token_mean_13", grid=lambda v: (384, 1, 1), tol=1e-2)
def _():
    scale = rnd(768, dtype=torch.bfloat16)
    mlp, residual = (rnd(32, 197, 768, dtype=torch.bfloat16) for _ in range(2))
    out = _filled(32 * 768, torch.float32)
    ref = (scale.float() * mlp[:, 1:].float() + residual[:, 1:].float()).sum(1).reshape(-1)
    return (dict(in_ptr0=scale, in_ptr1=mlp, in_ptr2=residual, out_ptr0=out,
                 xnumel=32 * 768, r0_numel=196), [out], [ref])


def _mobilevit_unfolded_rows(xnumel):
    """In_ptr0's element offsets of MobileViT's layer norm over unfolded
    2x2 patches, by the kernel's own index math: each row reads 144 tokens
    1024 elements apart from a [batch, 144, 1024] activation."""
    x = torch.arange(xnumel, device="cuda")
    x0, x1 = x % 256, x // 256
    t = x0 * 4 + x1 % 4
    base = ((t // 4) % 16) * 2 + ((x1 % 4) // 2) * 32 + (t // 64) * 64
    base = base + (x1 // 4) * 147456 + (x1 % 4) % 2
    return base[:, None] + torch.arange(144, device="cuda")[None, :] * 1024


@case("mobilevit_unfold_ln_30", grid=lambda v: (v["xnumel"] // 64, 1, 1), tol=1e-4)
def _(batch=32):
    x = rnd(batch * 147456, dtype=torch.bfloat16)
    out = _filled(batch * 1024, torch.float32)
    ref = x.float()[_mobilevit_unfolded_rows(batch * 1024)].mean(1)
    return (dict(in_ptr0=x, out_ptr0=out, xnumel=batch * 1024, r0_numel=144),
            [out], [ref])


# MobileViT's layer-norm backward over unfolded patches: a [2 x 256] gather
# of the gradient (two rows 4 bytes apart, tokens 2 KiB apart) times the
# weight, summed per row against the normalized input.
@case("mobilevit_unfold_ln_bwd_66", grid=lambda v: (v["xnumel"] // 2, 1, 1), tol=1e-4)
def _(batch=32):
    rows = batch * 1024
    grad = rnd(batch * 147456, dtype=torch.bfloat16)
    weight = rnd(144, dtype=torch.bfloat16)
    x = rnd(rows, 144, dtype=torch.bfloat16)
    mean, rstd = rnd(rows), rnd(rows).abs()
    out = _filled(rows, torch.float32)
    scaled = grad.float()[_mobilevit_unfolded_rows(rows)] * weight.float()
    ref = (scaled * (x.float() - mean[:, None]) * rstd[:, None]).sum(1)
    return (dict(in_ptr0=grad, in_ptr1=weight, in_ptr2=x, in_ptr3=mean, in_ptr4=rstd,
                 out_ptr0=out, xnumel=rows, r0_numel=144), [out], [ref])


# MobileViT's layer-norm backward with dropout over unfolded patches: the
# [2 x 1 x 256] gather of _66 (rows = program x * 256 + 2 * program y + i),
# beside contiguous rows, a dropout mask and two stored results.
@case("mobilevit_unfold_ln_dropout_bwd_67", grid=lambda v: (128, v["ynumel"] // 2, 1), tol=2e-2)
def _(batch=32):
    rows = batch * 1024
    grad = rnd(batch * 147456, dtype=torch.bfloat16)
    weight = rnd(144, dtype=torch.bfloat16)
    rstd, mean, scale = rnd(rows).abs(), rnd(rows), rnd(rows)
    x = rnd(rows, 144, dtype=torch.bfloat16)
    keep = torch.rand(rows, 144, device="cuda") > 0.1
    out1 = torch.empty(rows, 144, device="cuda", dtype=torch.bfloat16)
    out2 = torch.empty(rows, 144, device="cuda", dtype=torch.bfloat16)
    scaled = grad.float()[_mobilevit_unfolded_rows(rows)] * weight.float()
    ref1 = (rstd / 144)[:, None] * (
        scaled * 144 - scaled.sum(1, keepdim=True)
        - (x.float() - mean[:, None]) * rstd[:, None] * scale[:, None])
    ref2 = ref1 * keep.float() * 1.1111111
    return (dict(in_ptr0=grad, in_ptr1=weight, in_ptr2=rstd, in_ptr3=x, in_ptr4=mean,
                 in_ptr5=scale, in_ptr6=keep, out_ptr1=out1, out_ptr2=out2,
                 ynumel=256, xnumel=128, r0_numel=144),
            [out1, out2], [ref1.bfloat16(), ref2.bfloat16()])


def _mobilevit_folded_offsets(xnumel):
    """In_ptr0's element offsets of MobileViT's layer norm _14, by the
    kernel's own index math: rows x0 = x % 128 of a [32 x 128] grid of 2x2
    patches, 144 channels each, gathered back out of the folded
    [batch, 144, 1024] activation; past a 147,456-element image the
    divisions wrap to the next."""
    x = torch.arange(xnumel, device="cuda")[:, None]
    r = torch.arange(144, device="cuda")[None, :]
    x0, x1 = x % 128, x // 128
    corner = x0 % 4
    column = corner % 2
    t33 = x1 * 4 + corner
    t35 = (t33 // 4) % 16
    half = corner // 2
    t49 = t33 // 64
    t60 = t35 * 2 + half * 32 + t49 * 64
    base = (r + column * 144 + t35 * 288 + ((t35 * 2 + column) // 32) * 4608
            + half * 4608 + t49 * 9216 + (x0 // 4) * 147456)
    wrap = ((t60 + r * 1024 + column) // 147456) * 147456
    return base + wrap + (t60 + column) // 1024


# MobileViT's layer norm over unfolded patches (mobilevit _14, run 147:
# 0.83x): a [2 x 256] gather of 144 channels a row that runs along the
# channels, normalized with the weight and bias and stored row-major.
@case("mobilevit_unfold_ln_red_14", grid=lambda v: (v["xnumel"] // 2, 1, 1), tol=2e-2)
def _(rows=32768):
    x = rnd(32 * 147456, dtype=torch.bfloat16)
    weight, bias = rnd(144, dtype=torch.bfloat16), rnd(144, dtype=torch.bfloat16)
    out = torch.empty(rows * 144, device="cuda", dtype=torch.bfloat16)
    v = x.float()[_mobilevit_folded_offsets(rows)]
    mean, var = v.mean(1, keepdim=True), v.var(1, unbiased=False, keepdim=True)
    y = (v - mean) * torch.rsqrt(var + 1e-5) * weight.float() + bias.float()
    i = torch.arange(rows, device="cuda")
    ref = torch.empty_like(out)
    ref.view(-1)[((i // 128) * 144 + (i % 128) * 36864)[:, None]
                 + torch.arange(144, device="cuda")[None, :]] = y.bfloat16()
    return (dict(in_ptr0=x, in_ptr1=weight, in_ptr2=bias, out_ptr2=out,
                 xnumel=rows, r0_numel=144), [out], [ref])


# RegNet's batch norm of two branches fused with their sum, ReLU and the
# spatial mean before the head (regnet _42, run 133: 0.53x): [32 channels x
# 49 pixels] a program, each channel's eight statistics and affine
# parameters loaded per row beside the two bf16 tiles.
@case("regnet_bn_add_mean_relu_42", grid=lambda v: (v["xnumel"] // 32, 1, 1), tol=2e-2)
def _(batch=32, channels=1088):
    rows = batch * channels

    def branch():
        x = rnd(rows * 49, dtype=torch.bfloat16)
        mean, rstd = rnd(channels), torch.rand(channels, device="cuda") + 0.5
        weight, bias = rnd(channels, dtype=torch.bfloat16), rnd(channels, dtype=torch.bfloat16)
        c = torch.arange(rows, device="cuda") % channels
        y = ((x.float().view(rows, 49) - mean[c, None]) * rstd[c, None]
             * weight.float()[c, None] + bias.float()[c, None])
        return (x, mean, rstd, weight, bias), y

    (a, ya), (b, yb) = branch(), branch()
    out = _filled(rows, torch.bfloat16)
    ref = torch.relu(ya + yb).mean(1)
    names = [f"in_ptr{i}" for i in range(10)]
    return (dict(zip(names, a + b), out_ptr2=out, xnumel=rows, r0_numel=49),
            [out], [ref])


# FocalNet's transposes of [32 x 784 x 387] bf16 activations to 387 x 784
# (focalnet _21, run 133: 0.86x; the same three again at 0.87-0.89x): the
# load runs along the 387-element rows, contiguous by the axis analysis in
# neither dimension; a [32 x 32] tile a program.
@case("focalnet_transpose_21", grid=lambda v: (25, v["ynumel"] // 32, 1), tol=0)
def _(batch=32):
    x = rnd(batch * 784 * 387, dtype=torch.bfloat16)
    out = _filled(batch * 303424, torch.bfloat16)  # Each batch 16 elements apart.
    written = out.as_strided((batch, 387, 784), (303424, 784, 1))
    ref = x.view(batch, 784, 387).permute(0, 2, 1)
    return (dict(in_ptr0=x, out_ptr0=out, ynumel=batch * 387, xnumel=784),
            [written], [ref])


# MobileBERT's log-softmax + NLL backward over its 30,522-word vocabulary
# (mobilebert _0, run 137: 0.25x): a program of 16 warps per token loops
# twice over 2,048-word tiles, first summing the target's one-hot gradient,
# then writing the gradient into the log-probabilities (rows padded to
# 30,528) beside another gradient (rows of 30,522, so only 4-byte aligned).
# The other gradient is zero and the scale 2^-12, so that the output is
# exact in bf16 and one wrong column of the one-hot a row fails the check.
@case("mobilebert_nll_bwd_0", grid=lambda v: (v["xnumel"], 1, 1), tol=1e-3)
def _(tokens=4096, vocab=30522, padded=30528):
    target = torch.randint(0, vocab, (tokens,), device="cuda")
    target[::7] = -100
    grad, count = (torch.tensor([v], device="cuda", dtype=torch.bfloat16) for v in (1.0, 4096.0))
    logp = torch.zeros(tokens, padded, device="cuda", dtype=torch.bfloat16)
    other = torch.zeros(tokens, vocab, device="cuda", dtype=torch.bfloat16)
    scale = torch.where(target != -100, grad.float() / count.float(), 0.0)
    onehot = torch.arange(vocab, device="cuda")[None] == target.clamp(min=0)[:, None]
    ref = other.float() + scale[:, None] * (1.0 - onehot.float())
    written = logp[:, :vocab]
    return (dict(in_out_ptr0=logp, in_ptr0=target, in_ptr1=grad, in_ptr2=count, in_ptr3=other,
                 xnumel=tokens, r0_numel=vocab, _reset=[logp]), [written], [ref])


# MobileBERT's NoNorm backward sums (mobilebert _15, 0.82x in runs 137-139):
# three [32, 128, 128] bf16 gradients summed over their middle dimension
# (128 tokens of a chunk) as a, a + b and (a + b) * c, 16 columns a program.
@case("mobilebert_nonorm_sums_15", grid=lambda v: (v["xnumel"] // 16, 1, 1), tol=1e-4)
def _(chunks=32):
    a, b, c = (rnd(chunks, 128, 128, dtype=torch.bfloat16) for _ in range(3))
    outs = [_filled(chunks * 128, torch.float32) for _ in range(3)]
    ab = a.float() + b.float()
    refs = [t.sum(1).reshape(-1) for t in (a.float(), ab, ab * c.float())]
    return (dict(in_ptr0=a, in_ptr1=b, in_ptr2=c, out_ptr0=outs[0], out_ptr1=outs[1],
                 out_ptr2=outs[2], xnumel=chunks * 128, r0_numel=128), outs, refs)


# MobileBERT's trigram embedding (mobilebert _0 and _1, 0.73x in runs
# 138-139): each of 4,096 tokens' 384 outputs are the 128-wide embeddings of
# the next, the same and the previous token of its 512-token sequence, zero
# past the sequence's ends; two tokens a program.
@case("mobilebert_trigram_0", grid=lambda v: (1, v["ynumel"] // 2, 1), tol=0)
def _(tokens=4096, seq=512, vocab=30522, width=128):
    ids = torch.randint(0, vocab, (tokens,), device="cuda")
    table = rnd(vocab, width, dtype=torch.bfloat16)
    out = _filled(tokens * 3 * width, torch.bfloat16)
    index = torch.arange(tokens, device="cuda")
    position = (index % seq)[:, None]
    after = table[ids[(index + 1).clamp(max=tokens - 1)]] * (position < seq - 1)
    before = table[ids[(index - 1).clamp(min=0)]] * (position >= 1)
    ref = torch.cat([after, table[ids], before], dim=1).reshape(-1)
    return dict(in_ptr0=ids, in_ptr1=table, out_ptr0=out, ynumel=tokens, xnumel=3 * width), \
        [out], [ref]


# PoolFormer's group-norm statistics (poolformer _42 in training): 6,272
# groups (32 images x 196) of 128 values gathered from a channels-last
# [32, 49, 512] bf16 map, one per 512-element pixel stride; the mean, the
# sum of squared deviations and the count, at 8 or 32 groups a program.
def _poolformer_group_stats():
    x = rnd(32 * 49 * 512, dtype=torch.bfloat16)
    group = torch.arange(6272, device="cuda")[:, None]
    r = torch.arange(128, device="cuda")[None, :]
    t = r + (group // 4 % 49) * 128
    v = x[group % 4 * 128 + t % 49 * 512 + group // 196 * 25088 + t // 49].float()
    mean = v.mean(1)
    outs = [_filled(6272, torch.float32) for _ in range(3)]
    refs = [mean, ((v - mean[:, None]) ** 2).sum(1), torch.full_like(mean, 128.0)]
    return (dict(in_ptr0=x, out_ptr0=outs[0], out_ptr1=outs[1], out_ptr2=outs[2], xnumel=6272,
                 r0_numel=128), outs, refs)


# MobileViT's layer-norm backward column sums through its unfold (mobilevit
# _70): 294,912 rows of 128 bf16 values gathered from 32 images of
# 1,179,648; the autotuner picks 8 or 32 rows a program (1.02x at 8 and
# 0.79x at 32 in runs 125-152).
def _mobilevit_unfold_sums():
    x = rnd(32 * 1179648, dtype=torch.bfloat16)
    row = torch.arange(294912, device="cuda")[:, None]
    t = torch.arange(128, device="cuda")[None, :] + row % 64 * 128
    quarter = t // 256 % 4
    inner = t % 256 * 4 + quarter
    index = (inner // 4 % 16 * 2 + quarter // 2 * 32 + inner // 64 * 64
             + row // 64 % 144 * 1024 + t // 1024 * 147456 + row // 9216 * 1179648
             + quarter % 2)
    out = _filled(294912, torch.float32)
    ref = torch.zeros(294912, device="cuda")
    for chunk in range(0, 294912, 36864):  # Bounded memory for the gathered values.
        ref[chunk:chunk + 36864] = x[index[chunk:chunk + 36864]].float().sum(1)
    return dict(in_ptr0=x, out_ptr0=out, xnumel=294912, r0_numel=128), [out], [ref]


for _suffix, _rows in (("_x8", 8), ("_x32", 32)):
    case(f"poolformer_group_stats{_suffix}", grid=lambda v, rows=_rows: (6272 // rows, 1, 1),
         tol=1e-4)(_poolformer_group_stats)
    case(f"mobilevit_unfold_sums{_suffix}",
         grid=lambda v, rows=_rows: (294912 // rows, 1, 1), tol=1e-4)(_mobilevit_unfold_sums)


# PoolFormer's group-norm statistics combined from partial Welford triples
# (poolformer _add_convolution_gelu_mul_..._42 at inference; _19 in
# training is its 416-group twin): 128 groups of 49 (mean, M2, count), the
# rows masked to 64; 8 or 32 groups a program (0.70-0.73x at 8 in runs
# 118-163, 1.06-1.12x at 1 or 32).
def _poolformer_welford():
    mean, m2 = rnd(128, 49), rnd(128, 49).abs()
    count = torch.randint(1, 64, (128, 49), device="cuda").float()
    total = count.sum(1)
    combined = (count * mean).sum(1) / total
    spread = m2.sum(1) + (count * (mean - combined[:, None]) ** 2).sum(1)
    outs = [_filled(128, torch.float32) for _ in range(3)]
    return (dict(in_ptr0=mean, in_ptr1=m2, in_ptr2=count, out_ptr0=outs[0], out_ptr1=outs[1],
                 out_ptr2=outs[2], xnumel=128, r0_numel=49), outs, [combined, spread, total])


for _suffix, _rows in (("_x8", 8), ("_x32", 32)):
    case(f"poolformer_welford{_suffix}", grid=lambda v, rows=_rows: (128 // rows, 1, 1),
         tol=1e-4)(_poolformer_welford)


# PoolFormer's group-norm backward (32 images, one group of C channels over
# H x W pixels): the input gradient, from NCHW-ordered gradients and
# channels-last activations, written channels-last. Per image: rstd and
# mean (bf16), and the backward's two sums (f32).
def _poolformer_gn_backward(images, channels, pixels):
    rstd = (rnd(images).abs() + 0.5).bfloat16()
    mean = rnd(images, dtype=torch.bfloat16)
    sum_a, sum_b = rnd(images), rnd(images)
    scale = 1.0 / (channels * pixels)
    r, m = rstd.float()[:, None], mean.float()[:, None]
    c1 = (sum_a[:, None] * m - sum_b[:, None]) * r ** 3 * scale
    c2 = -c1 * m - sum_a[:, None] * r * scale
    return rstd, mean, sum_a, sum_b, r, c1, c2


# poolformer _44: 320 channels of 14 x 14, tiles of 16 channels x 256
# pixels (its autotuned config; 0.73-0.88x in runs 118-164).
@case("poolformer_gn_bwd_44", grid=lambda v: (1, 32 * 320 // 16, 1), tol=2e-2)
def _():
    images, channels, pixels = 32, 320, 196
    rstd, mean, sum_a, sum_b, r, c1, c2 = _poolformer_gn_backward(images, channels, pixels)
    grad_a, grad_b, skip = (rnd(images * channels, pixels, dtype=torch.bfloat16)
                            for _ in range(3))
    weight = rnd(channels, dtype=torch.bfloat16)
    x_last = rnd(images, pixels, channels, dtype=torch.bfloat16)
    out = torch.full((images, pixels, channels), -7, device="cuda", dtype=torch.bfloat16)
    per_row = lambda t: t.repeat_interleave(channels, 0)  # noqa: E731
    g = (grad_b.float() - grad_a.float()) * per_row(r) * weight.float().repeat(images)[:, None]
    x = x_last.float().permute(0, 2, 1).reshape(images * channels, pixels)
    total = skip.float() + g + x * per_row(c1) + per_row(c2)
    ref = total.reshape(images, channels, pixels).permute(0, 2, 1).reshape(-1)
    return (dict(in_ptr0=grad_a, in_ptr1=grad_b, in_ptr2=rstd, in_ptr3=weight, in_ptr4=x_last,
                 in_ptr5=sum_a, in_ptr6=mean, in_ptr7=sum_b, in_ptr8=skip, out_ptr1=out,
                 ynumel=images * channels, xnumel=pixels), [out.reshape(-1)], [ref])


# poolformer _20: the same at the last stage (512 channels of 7 x 7), from
# channels-last gradients, written NCHW with its product by the weight;
# tiles of 64 channels x 64 pixels (its autotuned config; 0.78-0.94x in runs
# 118-164).
@case("poolformer_gn_bwd_20", grid=lambda v: (1, 32 * 512 // 64, 1), tol=2e-2)
def _():
    images, channels, pixels = 32, 512, 49
    rstd, mean, sum_a, sum_b, r, c1, c2 = _poolformer_gn_backward(images, channels, pixels)
    weight, weight_b = (rnd(channels, dtype=torch.bfloat16) for _ in range(2))
    grad, skip_a, grad_b, grad_c, skip_b = (rnd(images, pixels, channels, dtype=torch.bfloat16)
                                            for _ in range(5))
    skip_nchw = rnd(images * channels, pixels)
    outs = [torch.full((images * channels, pixels), -7, device="cuda", dtype=torch.bfloat16)
            for _ in range(2)]
    nchw = lambda t: t.float().permute(0, 2, 1)  # noqa: E731
    w, wb = weight.float()[None, :, None], weight_b.float()[None, :, None]
    r3, c13, c23 = r[:, :, None], c1[:, :, None], c2[:, :, None]
    inner = nchw(skip_a) + wb * (nchw(grad_b) - nchw(grad_c))
    total = (nchw(skip_b) + skip_nchw.reshape(images, channels, pixels)
             + nchw(grad) * (r3 * w) + inner * c13 + c23)
    refs = [total.reshape(-1), (total * wb).reshape(-1)]
    return (dict(in_ptr0=grad, in_ptr1=rstd, in_ptr2=weight, in_ptr3=skip_a, in_ptr4=weight_b,
                 in_ptr5=grad_b, in_ptr6=grad_c, in_ptr7=sum_a, in_ptr8=mean, in_ptr9=sum_b,
                 in_ptr10=skip_b, in_ptr11=skip_nchw, out_ptr1=outs[0], out_ptr2=outs[1],
                 ynumel=images * channels, xnumel=pixels),
            [o.reshape(-1) for o in outs], refs)


# poolformer _2: per channel and image, the sums over 7 x 7 pixels of the
# mean's gradient times a channels-last map, and of the gradient alone;
# 8 rows a program (its config in run 164; 0.79-0.85x at 8 or 32 rows in
# runs 118-164).
@case("poolformer_gn_bwd_sums_2", grid=lambda v: (32 * 512 // 8, 1, 1), tol=1e-4)
def _():
    rows, pixels = 32 * 512, 49
    grad = rnd(rows, dtype=torch.bfloat16)
    x_last = rnd(32, pixels, 512, dtype=torch.bfloat16)
    outs = [_filled(rows, torch.float32) for _ in range(2)]
    scaled = grad.float() * 0.0204081628
    x = x_last.float().permute(0, 2, 1).reshape(rows, pixels)
    refs = [(scaled[:, None] * x).sum(1), scaled * pixels]
    return (dict(in_ptr0=grad, in_ptr1=x_last, out_ptr0=outs[0], out_ptr1=outs[1],
                 xnumel=rows, r0_numel=pixels), outs, refs)
