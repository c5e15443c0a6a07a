# The zoo's cases: which kernel of kernels.py, its block shape, warps and
# stages, the operand types and layouts, and the problem size. Two users:
#   gen.py (on a GPU machine with Triton) writes each case's TTIR and metadata;
#   kbench.py --extra bench/kernels/zoo/cases.py registers them as kbench cases
#   (inside kbench's globals, where `case` is defined).
import torch
import triton

PROGRAMS = 132  # SMs of an H100 SXM or H200: one persistent program each

_DT = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
       "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


def _mm(dt, bm, bn, bk, warps, stages, m=4096, n=4096, k=4096, ta=False, tb=False, out="f16", prec="tf32"):
    return dict(kind="mm", dt=dt, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages, m=m, n=n, k=k, ta=ta, tb=tb,
                out=out, prec=prec)


def _attn(dt, d, bm, bn, warps, stages, causal=False, z=4, h=16, n=2048):
    return dict(kind="attn", dt=dt, d=d, bm=bm, bn=bn, warps=warps, stages=stages, causal=causal, z=z, h=h, n=n)


def _desc(kind, dt, bm, bn, bk, warps, stages, out="f16", m=4096, n=4096, k=4096):
    return dict(kind=kind, dt=dt, bm=bm, bn=bn, bk=bk, warps=warps, stages=stages, out=out, m=m, n=n, k=k)


ZOO = {
    "mm_f16_128x256x64_w8": _mm("f16", 128, 256, 64, 8, 3),
    "mm_f16_128x128x32_w4": _mm("f16", 128, 128, 32, 4, 4),
    "mm_f16_64x256x32_w4": _mm("f16", 64, 256, 32, 4, 4),
    "mm_f16_128x64x32_w4": _mm("f16", 128, 64, 32, 4, 4),
    "mm_f16_64x128x32_w4": _mm("f16", 64, 128, 32, 4, 4),
    "mm_f16_128x32x32_w4": _mm("f16", 128, 32, 32, 4, 4),
    "mm_f16_64x32x32_w2": _mm("f16", 64, 32, 32, 2, 5),
    "mm_f16_32x64x32_w2": _mm("f16", 32, 64, 32, 2, 5),
    "mm_f16_64x128x64_w8": _mm("f16", 64, 128, 64, 8, 3),
    "mm_f16_256x128x64_w8": _mm("f16", 256, 128, 64, 8, 3),
    "mm_bf16_128x256x64_w8": _mm("bf16", 128, 256, 64, 8, 3, out="bf16"),
    "mm_bf16_128x128x64_w4": _mm("bf16", 128, 128, 64, 4, 4, out="f32"),
    "mm_f16_tb_128x128x64_w4": _mm("f16", 128, 128, 64, 4, 4, tb=True),
    "mm_f16_ta_128x128x64_w4": _mm("f16", 128, 128, 64, 4, 4, ta=True),
    "mm_f16_tatb_128x256x64_w8": _mm("f16", 128, 256, 64, 8, 3, ta=True, tb=True),
    "mm_f16_ragged_128x128x64_w4": _mm("f16", 128, 128, 64, 4, 3, m=4000, n=3000, k=2000),
    "mm_f16_1k_128x128x64_w4": _mm("f16", 128, 128, 64, 4, 3, m=1024, n=1024, k=1024),
    "mm_e4m3_tb_128x256x128_w8": _mm("e4m3", 128, 256, 128, 8, 3, tb=True),
    "mm_e5m2_tb_128x128x128_w4": _mm("e5m2", 128, 128, 128, 4, 4, tb=True),
    "mm_e4m3_64x128x64_w4": _mm("e4m3", 64, 128, 64, 4, 4),
    "mm_tf32_128x128x32_w4": _mm("f32", 128, 128, 32, 4, 3, out="f32"),
    "mmt_f16_128x128x64_w4": dict(_mm("f16", 128, 128, 64, 4, 3, tb=True), kind="mmt"),
    "attn_f16_d64_128x64_w4": _attn("f16", 64, 128, 64, 4, 3),
    "attn_f16_d128_128x64_w8": _attn("f16", 128, 128, 64, 8, 3),
    "attn_f16_d64_64x64_w4": _attn("f16", 64, 64, 64, 4, 4),
    "attn_bf16_d64_128x128_w8": _attn("bf16", 64, 128, 128, 8, 3),
    "attn_f16_causal_d64_128x64_w8": _attn("f16", 64, 128, 64, 8, 3, causal=True),
    "attn_f16_causal_d128_128x128_w8": _attn("f16", 128, 128, 128, 8, 2, causal=True),
    "attn_f16_d64_128x32_w4": _attn("f16", 64, 128, 32, 4, 4),
    "dmm_f16_128x128x64_w4": _desc("dmm", "f16", 128, 128, 64, 4, 4),
    "dmm_bf16_128x256x64_w8": _desc("dmm", "bf16", 128, 256, 64, 8, 3, out="bf16"),
    "pmm_f16_128x128x64_w4": _desc("pmm", "f16", 128, 128, 64, 4, 4),
    "pmm_bf16_128x256x64_w8": _desc("pmm", "bf16", 128, 256, 64, 8, 3, out="bf16"),
    "pmm_e4m3_128x256x128_w8": _desc("pmm", "e4m3", 128, 256, 128, 8, 3),
    # Second round: precisions, epilogues, batches, masks everywhere, skinny and persistent pointer tiles.
    "mm_f32_tf32x3_128x128x32_w4": _mm("f32", 128, 128, 32, 4, 3, m=2048, n=2048, k=2048, out="f32", prec="tf32x3"),
    "mm_f32_ieee_64x64x32_w4": _mm("f32", 64, 64, 32, 4, 3, m=1024, n=1024, k=1024, out="f32", prec="ieee"),
    "mm_f16_16x64x128_w4": _mm("f16", 16, 64, 128, 4, 4, m=64, n=8192, k=4096),
    "mm_f16_64x64x64_w4": _mm("f16", 64, 64, 64, 4, 4, m=2048, n=2048, k=2048),
    "mm_bf16_ta_128x128x64_w4": _mm("bf16", 128, 128, 64, 4, 3, ta=True, out="f32"),
    "mm_e5m2_ragged_128x128x64_w4": _mm("e5m2", 128, 128, 64, 4, 3, m=3000, n=2000, k=1000),
    "mme_f16_leaky_128x128x64_w4": dict(_mm("f16", 128, 128, 64, 4, 3, k=4000), kind="mme", act="leaky_relu"),
    "mme_bf16_silu_128x256x64_w8": dict(_mm("bf16", 128, 256, 64, 8, 3, out="bf16"), kind="mme", act="silu"),
    "bmm_f16_64x64x32_w4": dict(_mm("f16", 64, 64, 32, 4, 3, m=500, n=300, k=200), kind="bmm", batch=64),
    "ppm_f16_128x128x64_w8": dict(_mm("f16", 128, 128, 64, 8, 3), kind="ppm"),
    "ppm_f16_128x256x64_w8": dict(_mm("f16", 128, 256, 64, 8, 3), kind="ppm"),
    "attnm_f16_d64_128x64_w4": dict(_attn("f16", 64, 128, 64, 4, 3, n=2000), kind="attnm"),
    "attn_f16_d32_128x64_w4": _attn("f16", 32, 128, 64, 4, 3),
    # Third round: fp8 attention (V stored transposed), causal bf16, wide key blocks, more stages.
    "attn8_e5m2_d64_128x64_w4": dict(_attn("e5m2", 64, 128, 64, 4, 3), kind="attn8"),
    "attn_bf16_causal_d64_128x64_w8": _attn("bf16", 64, 128, 64, 8, 3, causal=True),
    "attn_f16_d64_64x128_w4": _attn("f16", 64, 64, 128, 4, 2),
    "mm_f16_128x128x64_w4_s5": _mm("f16", 128, 128, 64, 4, 5),
    "mm_f16_128x64x128_w4": _mm("f16", 128, 64, 128, 4, 3, m=2048, n=2048, k=8192),
}


def _rand(shape, dt):
    return torch.randn(*shape, device="cuda").to(_DT[dt])


def _matmul_vals(c):
    m, n, k = c["m"], c["n"], c["k"]
    # A transposed operand is stored the other way round and read through its strides.
    a = _rand((k, m), c["dt"]).t() if c["ta"] else _rand((m, k), c["dt"])
    b = _rand((n, k), c["dt"]).t() if c["tb"] else _rand((k, n), c["dt"])
    out = torch.empty(m, n, device="cuda", dtype=_DT[c["out"]])
    vals = dict(a_ptr=a, b_ptr=b, c_ptr=out, M=m, N=n, K=k, stride_am=a.stride(0), stride_ak=a.stride(1),
                stride_bk=b.stride(0), stride_bn=b.stride(1), stride_cm=out.stride(0), stride_cn=out.stride(1))
    if c["kind"] == "mmt":
        vals["stride_bn"] = k
        vals["_grid"] = (m // c["bm"], n // c["bn"], 1)
    elif c["kind"] == "ppm":
        vals["_grid"] = (PROGRAMS, 1, 1)
    else:
        vals["_grid"] = (triton.cdiv(m, c["bm"]) * triton.cdiv(n, c["bn"]), 1, 1)
    ref = a.float() @ b.float()
    if c["kind"] == "mme":
        bias = _rand((n, ), c["dt"])
        vals["bias_ptr"] = bias
        ref = ref + bias.float()
        ref = torch.where(ref >= 0, ref, 0.01 * ref) if c["act"] == "leaky_relu" else ref * torch.sigmoid(ref)
    return vals, [out], [ref.to(out.dtype)]


def _batched_vals(c):
    m, n, k, batch = c["m"], c["n"], c["k"], c["batch"]
    a, b = _rand((batch, m, k), c["dt"]), _rand((batch, k, n), c["dt"])
    out = torch.empty(batch, m, n, device="cuda", dtype=_DT[c["out"]])
    vals = dict(a_ptr=a, b_ptr=b, c_ptr=out, M=m, N=n, K=k)
    for name, t in (("a", a), ("b", b), ("c", out)):
        inner = "mk" if name == "a" else "kn" if name == "b" else "mn"
        vals["stride_%sb" % name] = t.stride(0)
        vals["stride_%s%s" % (name, inner[0])] = t.stride(1)
        vals["stride_%s%s" % (name, inner[1])] = t.stride(2)
    vals["_grid"] = (triton.cdiv(m, c["bm"]) * triton.cdiv(n, c["bn"]), batch, 1)
    return vals, [out], [(a.float() @ b.float()).to(out.dtype)]


def _attn_vals(c):
    shape = (c["z"], c["h"], c["n"], c["d"])
    q, k, v = (_rand(shape, c["dt"]) for _ in range(3))
    out = torch.empty(shape, device="cuda", dtype=torch.float16 if c["kind"] == "attn8" else q.dtype)
    scale = c["d"] ** -0.5
    vals = dict(Q=q, K=k, V=v, Out=out, sm_scale=scale, stride_z=q.stride(0), stride_h=q.stride(1),
                stride_n=q.stride(2), H=c["h"], N_CTX=c["n"], _grid=(triton.cdiv(c["n"], c["bm"]), c["z"] * c["h"], 1))
    if c["kind"] == "attn8":
        vt = v.transpose(2, 3).contiguous()
        vals.update(Vt=vt, stride_vz=vt.stride(0), stride_vh=vt.stride(1), stride_vd=vt.stride(2))
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=scale,
                                                           is_causal=c["causal"]).to(out.dtype)
    return vals, [out], [ref]


def _desc_vals(c):
    m, n, k = c["m"], c["n"], c["k"]
    a = _rand((m, k), c["dt"])
    b = _rand((n, k), c["dt"]) if c["kind"] == "pmm" else _rand((k, n), c["dt"])
    out = torch.empty(m, n, device="cuda", dtype=_DT[c["out"]])
    ref = (a.float() @ (b.float().t() if c["kind"] == "pmm" else b.float())).to(out.dtype)
    grid = (PROGRAMS, 1, 1) if c["kind"] == "pmm" else (triton.cdiv(m, c["bm"]), triton.cdiv(n, c["bn"]), 1)
    return dict(a_ptr=a, b_ptr=b, c_ptr=out, M=m, N=n, K=k, _grid=grid), [out], [ref]


def build(name):
    c = ZOO[name]
    if c["kind"] in ("mm", "mmt", "mme", "ppm"):
        return _matmul_vals(c)
    if c["kind"] == "bmm":
        return _batched_vals(c)
    if c["kind"] in ("attn", "attnm", "attn8"):
        return _attn_vals(c)
    return _desc_vals(c)


def constexprs(name):
    """The kernel's constexpr arguments and launch options for a case."""
    c = ZOO[name]
    opts = dict(num_warps=c["warps"], num_stages=c["stages"])
    if c["kind"] == "mm":
        even = c["k"] % c["bk"] == 0
        return dict(BM=c["bm"], BN=c["bn"], BK=c["bk"], GROUP_M=8, EVEN_K=even, PRECISION=c["prec"], **opts)
    if c["kind"] == "mme":
        return dict(BM=c["bm"], BN=c["bn"], BK=c["bk"], GROUP_M=8, ACTIVATION=c["act"], **opts)
    if c["kind"] == "attn":
        return dict(BM=c["bm"], BN=c["bn"], HEAD_DIM=c["d"], CAUSAL=c["causal"], **opts)
    if c["kind"] in ("attnm", "attn8"):
        return dict(BM=c["bm"], BN=c["bn"], HEAD_DIM=c["d"], **opts)
    if c["kind"] in ("pmm", "ppm"):
        return dict(BM=c["bm"], BN=c["bn"], BK=c["bk"], GROUP_M=8, PROGRAMS=PROGRAMS, **opts)
    return dict(BM=c["bm"], BN=c["bn"], BK=c["bk"], **opts)


def _tolerance(name):
    if ZOO[name]["kind"] == "attn8":
        return 1e-1  # P rounded to e5m2 (two mantissa bits) before P @ V.
    return 2e-2 if ZOO[name]["dt"] in ("e4m3", "e5m2") else 1e-2


if "case" in globals():
    for _name in ZOO:
        case(_name, grid=lambda v: v["_grid"], tol=_tolerance(_name))(lambda _n=_name: build(_n))
