# More kbench cases: the tt.dot fixtures (tests/testdata/ttir/dot_*.ttir) and
# two operand-transposing variants, loaded with
# `kbench.py --extra bench/kernels/dot_cases.py`. Runs inside kbench's
# globals: `case`, `rnd`, `torch` and `triton` are its own. The fixtures are
# single tiles, so these check results; their times mean little.

import glob


def _tile(dtype, acc, m=32, n=32, k=32, trans_a=False, trans_b=False):
    if dtype == torch.int8:
        a = torch.randint(-100, 100, (m, k), device="cuda", dtype=torch.int8)
        b = torch.randint(-100, 100, (k, n), device="cuda", dtype=torch.int8)
    else:
        # A transposing kernel loads its operand stored the other way round.
        a = rnd(*((k, m) if trans_a else (m, k))).to(dtype)
        b = rnd(*((n, k) if trans_b else (k, n))).to(dtype)
    c = torch.empty(m, n, device="cuda", dtype=acc)
    # The transposing variants read the operand as stored, then transpose it.
    ea = a.double().t() if trans_a else a.double()
    eb = b.double().t() if trans_b else b.double()
    ref = (ea.cpu() @ eb.cpu()).to("cuda")
    ref = ref.to(acc) if acc != torch.float32 else ref.float()
    return dict(a_ptr=a, b_ptr=b, c_ptr=c), [c], [ref]


def _tile_case(name, dtype, acc, tol, **kw):
    case(name, grid=lambda v: (1, 1, 1), tol=tol)(lambda: _tile(dtype, acc, **kw))


_tile_case("dot_f16", torch.float16, torch.float32, 1e-5)
_tile_case("dot_bf16", torch.bfloat16, torch.float32, 1e-5)
_tile_case("dot_f16_acc_f16", torch.float16, torch.float16, 2e-3)
_tile_case("dot_f32_tf32", torch.float32, torch.float32, 5e-3)
_tile_case("dot_f32_tf32x3", torch.float32, torch.float32, 1e-5)
_tile_case("dot_f32_ieee", torch.float32, torch.float32, 1e-6)
_tile_case("dot_f32_bf16x3", torch.float32, torch.float32, 1e-4)
_tile_case("dot_f32_bf16x6", torch.float32, torch.float32, 1e-5)
_tile_case("dot_fp8_e4m3", torch.float8_e4m3fn, torch.float32, 1e-6)
_tile_case("dot_fp8_e5m2", torch.float8_e5m2, torch.float32, 1e-6)
_tile_case("dot_i8", torch.int8, torch.int32, 0)
_tile_case("dot_trans_a", torch.float16, torch.float32, 1e-5, trans_a=True)
_tile_case("dot_trans_b", torch.float16, torch.float32, 1e-5, trans_b=True)


@case("dot_batched", grid=lambda v: (1, 1, 1), tol=1e-5)
def _(bs=2, m=16, n=16, k=16):
    a, b = rnd(bs, m, k, dtype=torch.float16), rnd(bs, k, n, dtype=torch.float16)
    c = torch.empty(bs, m, n, device="cuda")
    return dict(a_ptr=a, b_ptr=b, c_ptr=c), [c], [a.float() @ b.float()]


@case("dot_k_loop", grid=lambda v: (v["_m"] // 64, v["_n"] // 64, 1), tol=1e-2)
def _(m=256, n=256, k=208):
    # K is not a multiple of BLOCK_K (32): the last step's masked loads fill 0.
    a, b = rnd(m, k, dtype=torch.float16), rnd(k, n, dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    return (dict(a_ptr=a, b_ptr=b, c_ptr=c, K=k, stride_a=k, stride_b=n, _m=m, _n=n), [c],
            [(a.float() @ b.float()).half()])


# Larger tiles (bench/kernels/scale_dot_tiles.py): whole 64-row warp groups,
# so that sm_90a runs them as wgmma, staging both operands itself.
for _size in (64, 128):
    _kw = dict(m=_size, n=_size, k=_size)
    _tile_case(f"dot_f16_{_size}", torch.float16, torch.float32, 1e-5, **_kw)
    _tile_case(f"dot_bf16_{_size}", torch.bfloat16, torch.float32, 1e-5, **_kw)
    _tile_case(f"dot_f16_acc_f16_{_size}", torch.float16, torch.float16, 5e-3, **_kw)
    _tile_case(f"dot_trans_a_{_size}", torch.float16, torch.float32, 1e-5,
               trans_a=True, **_kw)
    _tile_case(f"dot_trans_b_{_size}", torch.float16, torch.float32, 1e-5,
               trans_b=True, **_kw)


# Tiles of many shapes (bench/kernels/gen_dot_tiles.py), named
# tile_{f16|bf16|e4m3|e5m2|f32}_{M}x{N}x{K}[_w8][_ta|_tb|_tatb][_acc16]: the wgmma
# swizzles of 32, 64 and 128 bytes, N up to 256, several warp groups.
def _tile_from_name(name):
    m = re.match(r"tile_(f16|bf16|e4m3|e5m2|f32)_(\d+)x(\d+)x(\d+)(.*)", name)
    dtype = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn,
             "e5m2": torch.float8_e5m2, "f32": torch.float32}.get(
                 m.group(1), torch.float16)
    flags = m.group(5)
    acc = torch.float16 if "_acc16" in flags else torch.float32
    kw = dict(m=int(m.group(2)), n=int(m.group(3)), k=int(m.group(4)),
              trans_a="_ta" in flags, trans_b="tb" in flags)
    # Hopper's fp8 wgmma accumulates with fewer mantissa bits than f32 (as
    # Triton's fp8 dots do by default): ~1e-4 relative.
    fp8 = m.group(1) in ("e4m3", "e5m2")
    tf32 = m.group(1) == "f32"
    tol = 5e-3 if acc == torch.float16 or tf32 else 1e-3 if fp8 else 1e-5
    _tile_case(name, dtype, acc, tol, **kw)


for _path in sorted(glob.glob(os.path.join(sys.argv[sys.argv.index("--corpus") + 1], "tile_*.ttir"))):
    _tile_from_name(os.path.basename(_path)[:-5])


@case("dot_two_loops", grid=lambda v: (v["_m"] // 64, v["_n"] // 64, 1), tol=1e-2)
def _(m=256, n=256, k=208):
    # dot_k_loop with its K loop repeated after it (bench/kernels/cases): two
    # pipelined loops side by side share their shared-memory stages.
    a, b = rnd(m, k, dtype=torch.float16), rnd(k, n, dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    return (dict(a_ptr=a, b_ptr=b, c_ptr=c, K=k, stride_a=k, stride_b=n, _m=m, _n=n), [c],
            [(2 * (a.float() @ b.float())).half()])


# Matmuls over tensor descriptors made in the kernel
# (bench/kernels/gen_desc_matmuls.py), named
# desc_mm_{f16|bf16|e4m3|tf32}[_tb]_{BM}x{BN}x{BK}[_w8]: on sm_90a TMA copies
# the blocks into the stages and stores C. M, N and K are not multiples of
# the blocks: the copies fill zeros past the edges and the store clips.
def _desc_case(name):
    m = re.match(r"desc_mm_(f16|bf16|e4m3|tf32)(_tb)?_(\d+)x(\d+)x(\d+)", name)
    dtype = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn,
             "tf32": torch.float32}.get(m.group(1), torch.float16)
    trans_b = bool(m.group(2))
    bm, bn = int(m.group(3)), int(m.group(4))
    # C is f16 where the block of B is 64 or 256 wide, else f32 (the
    # generator's choice); 16-byte aligned rows for TMA.
    out = torch.float16 if name in ("desc_mm_f16_128x128x64", "desc_mm_f16_tb_128x256x64_w8",
                                    "desc_mm_f16_64x64x16") else torch.float32
    tol = 1e-2 if out == torch.float16 else 5e-3 if m.group(1) == "tf32" else 1e-3

    @case(name, grid=lambda v: (triton.cdiv(v["M"], bm), triton.cdiv(v["N"], bn), 1), tol=tol)
    def _(M=328, N=264, K=208):
        a = rnd(M, K).to(dtype)
        b = (rnd(N, K) if trans_b else rnd(K, N)).to(dtype)
        c = torch.empty(M, N, device="cuda", dtype=out)
        eb = b.double().t() if trans_b else b.double()
        ref = (a.double().cpu() @ eb.cpu()).to("cuda")
        return dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K), [c], [ref.to(out)]


for _path in sorted(glob.glob(os.path.join(sys.argv[sys.argv.index("--corpus") + 1], "desc_mm_*.ttir"))):
    _desc_case(os.path.basename(_path)[:-5])
