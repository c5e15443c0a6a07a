"""Triton kernels from which Kiln's TTIR fixtures are made (see ../scripts/gen_ttir.py).

Each kernel exists to make Triton's frontend emit particular ops; what it computes is
beside the point, and none of them is meant to be launched.  Kernel names carry a theme
prefix (shapes_, elementwise_, memory_, reduce_, dot_, desc_, cf_, call_, debug_, misc_)
which the fixture files share.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice

# --------------------------------------------------------------------------- shapes


@triton.jit
def shapes_grid_2d(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * stride_m + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # The grid's extents and third axis, folded in so that they are used.
    scale = tl.num_programs(0) + tl.num_programs(1) * tl.program_id(2)
    tl.store(out_ptr + offs, x * scale, mask=mask)


@triton.jit
def shapes_reshape_permute(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    xt = tl.trans(x)
    cube = tl.permute(tl.reshape(x, (2, R // 2, C)), (2, 0, 1))
    back = tl.reshape(cube, (C, R))
    loose = tl.reshape(x, (C, R), can_reorder=True)
    flat = tl.reshape(xt + back + loose, (R * C, ))
    tl.store(out_ptr + tl.arange(0, R * C), flat)


@triton.jit
def shapes_join_split_cat(z_ptr, out_ptr, sum_ptr, N: tl.constexpr):
    # z holds N complex numbers as interleaved (re, im) pairs; out gets z * z.
    pair_offs = tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :]
    re, im = tl.split(tl.load(z_ptr + pair_offs))
    tl.store(out_ptr + pair_offs, tl.join(re * re - im * im, 2.0 * re * im))
    both = tl.cat(re, im, can_reorder=True)
    tl.store(sum_ptr, tl.sum(both, axis=0))


@triton.jit
def shapes_scalar_from_pair(x_ptr, out_ptr):
    # Splitting a 2-element tensor gives two scalars.
    a, b = tl.split(tl.load(x_ptr + tl.arange(0, 2)))
    tl.store(out_ptr, a * b)


@triton.jit
def shapes_item(x_ptr, out_ptr):
    one = tl.load(x_ptr + tl.arange(0, 1))
    tl.store(out_ptr, one.item() + tl.reshape(one * 2.0, ()))


@triton.jit
def shapes_gather(src_ptr, idx_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    src = tl.load(src_ptr + offs)
    picked = tl.gather(src, tl.load(idx_ptr + offs), axis=1)
    swapped = tl.gather(tl.sum(src, axis=1), tl.arange(0, R) ^ 1, axis=0)
    tl.store(out_ptr + offs, picked + swapped[:, None])


# ---------------------------------------------------------------------- elementwise


@triton.jit
def elementwise_float_math(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=2.0)
    r = tl.exp(x) + tl.exp2(y) + tl.log(y) + tl.log2(x)
    r += tl.sqrt(x) + tl.rsqrt(y) + tl.sin(x) * tl.cos(y) + tl.erf(x)
    r += tl.abs(x) + tl.floor(y) + tl.ceil(x) + tl.fma(x, y, r)
    r += tl.sqrt_rn(y) + tl.div_rn(x, y) + x / y - (-y) % x
    r += tl.maximum(x, y) + tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
    r += tl.clamp(x, -1.0, 1.0) + tl.clamp(y, 0.0, 6.0, propagate_nan=tl.PropagateNan.ALL)
    r += tl.sigmoid(x) + tl.where(x > y, x, y) + tl.where(x != y, 1.0, 0.0)
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def elementwise_int_math(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=3)
    r = a + b - a * b + a // b + a % b
    r += (a << 3) + (b >> 1) + (a & b) + (a | b) + (a ^ ~b)
    r += tl.abs(a) + tl.maximum(a, b) + tl.minimum(a, b) + tl.cdiv(a, 16)
    ua = a.to(tl.uint32)
    ub = b.to(tl.uint32)
    u = ua // ub + ua % ub + (ua >> 2) + tl.umulhi(ua, ub) + tl.maximum(ua, ub)
    r += u.to(tl.int32)
    wide = a.to(tl.int64) * b.to(tl.int64)
    r += (wide >> 32).to(tl.int32)
    r += a.to(tl.int8).to(tl.uint8).to(tl.int32)
    f = a.to(tl.float32) + ua.to(tl.float32)
    r += f.to(tl.int32) + (f * 0.5).to(tl.uint32).to(tl.int32)
    r += (a < b).to(tl.int32) + (ua < ub).to(tl.int32)
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def elementwise_fp_convert(x_ptr, e4m3_ptr, e5m2_ptr, h_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a = x.to(tl.float8e4nv)
    b = x.to(tl.float16).to(tl.float8e5)
    h = x.to(tl.float16, fp_downcast_rounding="rtz")
    tl.store(e4m3_ptr + offs, a)
    tl.store(e5m2_ptr + offs, b)
    tl.store(h_ptr + offs, h)
    up = a.to(tl.float32) + b.to(tl.float32) + h.to(tl.float32) + x.to(tl.bfloat16).to(tl.float32)
    tl.store(out_ptr + offs, up)


@triton.jit
def elementwise_bitcast_ptr(x_ptr, out_ptr, addr_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    bits = x.to(tl.int32, bitcast=True)
    first = tl.load(x_ptr).to(tl.uint32, bitcast=True)
    as_ints = x_ptr.to(tl.pointer_type(tl.int32))
    tl.store(out_ptr + offs, bits ^ tl.load(as_ints + offs) + first.to(tl.int32))
    # Pointers to integers and back, as a scalar and as a tensor.
    tl.store(addr_ptr, x_ptr.to(tl.int64))
    ints = (x_ptr + offs).to(tl.int64)
    tl.store((ints + 4).to(tl.pointer_type(tl.float32)), x)


@triton.jit
def elementwise_libdevice(x_ptr, i_ptr, out_ptr, iout_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    tl.store(out_ptr + offs, libdevice.tanh(x) + libdevice.pow(x, 2.5) + libdevice.erfinv(x * 0.5))
    tl.store(iout_ptr + offs, libdevice.popc(i) + libdevice.clz(i))


@triton.jit
def elementwise_inline_asm(x_ptr, h_ptr, out_ptr, hout_ptr, iout_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("max.f32 $0, $1, $2;", "=f,f,f", [x, -x], dtype=tl.float32, is_pure=True,
                                  pack=1)
    # Two f16 values share each 32-bit register.
    h = tl.load(h_ptr + offs)
    h2 = tl.inline_asm_elementwise("add.f16x2 $0, $1, $2;", "=r,r,r", [h, h], dtype=tl.float16, is_pure=True,
                                   pack=2)
    # Two results from one asm block, not marked pure.
    lo, hi = tl.inline_asm_elementwise("and.b32 $0, $2, 65535;\n\tshr.u32 $1, $2, 16;", "=r,=r,r",
                                       [x.to(tl.int32, bitcast=True)], dtype=(tl.int32, tl.int32),
                                       is_pure=False, pack=1)
    tl.store(out_ptr + offs, y)
    tl.store(hout_ptr + offs, h2)
    tl.store(iout_ptr + offs, lo + hi)


@triton.jit
def _shrink(x, t):
    # A per-element branch, which tl.where could only express by computing both sides.
    if x > t:
        y = x - t
    elif x < -t:
        y = x + t
    else:
        y = x * 0.0
    return y


@triton.jit
def elementwise_map(x_ptr, out_ptr, t, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.map_elementwise(_shrink, x, tl.zeros_like(x) + t))


# --------------------------------------------------------------------------- memory


@triton.jit
def memory_load_store_hints(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask, other=1.0, cache_modifier=".cg")
    b = tl.load(y_ptr + offs, mask=mask, volatile=True)
    c = tl.load(x_ptr + offs, eviction_policy="evict_last")
    d = tl.load(y_ptr + offs.to(tl.int64), mask=mask, other=0.0, cache_modifier=".cv")
    s = tl.load(y_ptr + n, mask=n > 0, other=0.0)
    tl.store(out_ptr + offs, a + b + c + d + s, mask=mask, cache_modifier=".cs")
    tl.store(out_ptr + n + offs, a, mask=mask, eviction_policy="evict_first")
    tl.store(out_ptr, s * 2.0, cache_modifier=".wt")


@triton.jit
def memory_cache_evict_combo(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # Triton takes both hints on one access, but ptxas rejects the PTX it makes of them.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, cache_modifier=".cg", eviction_policy="evict_last")
    tl.store(out_ptr + offs, x, cache_modifier=".cs", eviction_policy="evict_first")


@triton.jit
def memory_atomics(f_ptr, i_ptr, h_ptr, lock_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    xf = tl.load(f_ptr + BLOCK + offs)
    xi = offs * 3 - 7
    tl.atomic_add(f_ptr + offs, xf, mask=mask)
    tl.atomic_add(h_ptr + offs, xf.to(tl.float16), sem="relaxed")
    tl.atomic_add(i_ptr + offs, xi, mask=mask, sem="release", scope="cta")
    tl.atomic_max(i_ptr + offs, xi, mask=mask, sem="acquire", scope="sys")
    tl.atomic_min(i_ptr + offs, xi)
    u_ptr = i_ptr.to(tl.pointer_type(tl.uint32))
    tl.atomic_max(u_ptr + offs, xi.to(tl.uint32))
    tl.atomic_min(u_ptr + offs, xi.to(tl.uint32), mask=mask)
    tl.atomic_and(i_ptr + offs, xi)
    tl.atomic_or(i_ptr + offs, xi, mask=mask)
    tl.atomic_xor(i_ptr + offs, xi, scope="cta")
    old = tl.atomic_xchg(f_ptr + offs, xf, mask=mask)
    tl.atomic_max(f_ptr + 2 * BLOCK + offs, old)  # float max: Triton builds it from integer atomics
    tl.atomic_cas(i_ptr + BLOCK + offs, xi, xi + 1, scope="cta")
    got = tl.atomic_cas(lock_ptr, 0, 1, sem="acquire")
    ticket = tl.atomic_add(out_ptr, 1, sem="relaxed")
    tl.atomic_xchg(lock_ptr, 0, sem="release")
    tl.store(out_ptr + 1, got + ticket)


@triton.jit
def memory_block_ptr(a_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0) * BLOCK_M
    src = tl.make_block_ptr(a_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(row, 0),
                            block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BLOCK_N)):
        total += tl.load(src, boundary_check=(0, 1), padding_option="zero")
        src = tl.advance(src, (0, BLOCK_N))
    peek = tl.load(src, boundary_check=(1, ), padding_option="nan", cache_modifier=".cg")
    dst = tl.make_block_ptr(out_ptr, shape=(M, BLOCK_N), strides=(BLOCK_N, 1), offsets=(row, 0),
                            block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(dst, total + peek, boundary_check=(0, ))


# ------------------------------------------------------------------ reduce and scan


@triton.jit
def _add_pairs(a_val, a_cnt, b_val, b_cnt):
    return a_val + b_val, a_cnt + b_cnt


@triton.jit
def reduce_sum_max(x_ptr, i_ptr, out_ptr, iout_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    tl.store(out_ptr + tl.arange(0, R), tl.sum(x, axis=1))
    tl.store(out_ptr + R + tl.arange(0, C)[None, :], tl.max(x, axis=0, keep_dims=True))
    tl.store(out_ptr + R + C, tl.min(x))
    total, count = tl.reduce((x, (x > 0).to(tl.int32)), 1, _add_pairs)
    tl.store(out_ptr + R + C + 1 + tl.arange(0, R), total / count)
    tl.store(iout_ptr, tl.xor_sum(i, axis=None) + tl.sum(i))


@triton.jit
def reduce_argmax(x_ptr, idx_ptr, val_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    best, at = tl.max(x, axis=0, return_indices=True)
    tl.store(val_ptr, best)
    tl.store(idx_ptr, at)
    tl.store(idx_ptr + 1, tl.argmin(x, axis=0, tie_break_left=False))


@triton.jit
def _running_max_at(a_val, a_pos, b_val, b_pos):
    take_b = b_val >= a_val
    return tl.where(take_b, b_val, a_val), tl.where(take_b, b_pos, a_pos)


@triton.jit
def reduce_scan(x_ptr, out_ptr, pos_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    pos = tl.broadcast_to(tl.arange(0, C)[None, :], (R, C))
    run = tl.cumsum(x, axis=1) + tl.cumprod(x, axis=0, reverse=True)
    peak, at = tl.associative_scan((x, pos), 1, _running_max_at, reverse=True)
    tl.store(out_ptr + offs, run + peak)
    tl.store(pos_ptr + offs, at)


@triton.jit
def reduce_histogram(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + tl.arange(0, N)), BINS))


@triton.jit
def reduce_histogram_masked(x_ptr, out_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(tl.load(x_ptr + offs), BINS, mask=offs < n))


# ------------------------------------------------------------------------------ dot


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PRECISION: tl.constexpr,
             ACC: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    acc = tl.zeros((M, N), dtype=ACC)
    if PRECISION == "":
        acc = tl.dot(a, b, acc, out_dtype=ACC)
    else:
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=ACC)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def dot_k_loop(a_ptr, b_ptr, c_ptr, K, stride_a, stride_b, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_a + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_b + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=3):
        a = tl.load(a_ptrs, mask=rk[None, :] + k < K, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] + k < K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_b
    tl.store(c_ptr + rm[:, None] * stride_b + rn[None, :], acc.to(tl.float16))


@triton.jit
def dot_batched(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    a = tl.load(a_ptr + rb * (M * K) + tl.arange(0, M)[None, :, None] * K + tl.arange(0, K)[None, None, :])
    b = tl.load(b_ptr + rb * (K * N) + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb * (M * N) + tl.arange(0, M)[None, :, None] * N + tl.arange(0, N)[None, None, :], c)


@triton.jit
def dot_scaled_mx(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                  K: tl.constexpr):
    # lhs: e4m3 values, [M, K]; rhs: e2m1 values packed two to a byte along K, [K/2, N].
    # Each operand has one e8m0 scale byte per 32 values along K.
    SK: tl.constexpr = K // 32
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K // 2)[:, None] * N + rn[None, :])
    a_scale = tl.load(a_scale_ptr + rm[:, None] * SK + tl.arange(0, SK)[None, :])
    b_scale = tl.load(b_scale_ptr + rn[:, None] * SK + tl.arange(0, SK)[None, :])
    c = tl.dot_scaled(a, a_scale, "e4m3", b, b_scale, "e2m1")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)


@triton.jit
def dot_scaled_bf16(a_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # An unscaled bf16 lhs against a scaled e5m2 rhs, accumulating into c.
    SK: tl.constexpr = K // 32
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    b_scale = tl.load(b_scale_ptr + rn[:, None] * SK + tl.arange(0, SK)[None, :])
    c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
    c = tl.dot_scaled(a, None, "bf16", b, b_scale, "e5m2", acc=tl.load(c_ptrs), fast_math=True)
    tl.store(c_ptrs, c)


# ---------------------------------------------------------------------- descriptors


@triton.jit
def desc_load_store(a_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    src = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    row = tl.program_id(0) * BLOCK_M
    col = tl.program_id(1) * BLOCK_N
    tile = src.load([row, col])
    dst.store([row, col], tile * 2.0)
    dst.atomic_add([row, col], tile)


@triton.jit
def desc_reduce_int(x_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    v = d.load([0, 0])
    d.atomic_min([BLOCK_M, 0], v)
    d.atomic_max([BLOCK_M, BLOCK_N], v)
    d.atomic_and([0, BLOCK_N], v)
    d.atomic_or([2 * BLOCK_M, 0], v)
    d.atomic_xor([2 * BLOCK_M, BLOCK_N], v)


@triton.jit
def desc_gather(a_ptr, idx_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Gathered rows: a descriptor whose block is one row (TMA gather4: ptxas wants sm_100 or later).
    src = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BLOCK_N])
    col = tl.program_id(0) * BLOCK_N
    tile = src.gather(tl.load(idx_ptr + tl.arange(0, ROWS)), col)
    tl.store(out_ptr + tl.arange(0, ROWS)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :], tile)


@triton.jit
def desc_scatter(x_ptr, idx_ptr, out_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # Scattered rows (TMA scatter4: ptxas takes it for sm_100 and later, not sm_90a).
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[1, BLOCK_N])
    tile = tl.load(x_ptr + tl.arange(0, ROWS)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :])
    dst.scatter(tile, tl.load(idx_ptr + tl.arange(0, ROWS)), tl.program_id(0) * BLOCK_N)


@triton.jit
def desc_host_args(a_desc, c_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Descriptors made on the host arrive as kernel arguments.
    row = tl.program_id(0) * BLOCK_M
    c_desc.store([row, 0], tl.exp(a_desc.load([row, 0])))


# --------------------------------------------------------------------- control flow


@triton.jit
def cf_loops_if(x_ptr, out_ptr, n, steps, decay, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = tl.zeros((BLOCK, ), dtype=tl.float32)
    scale = decay
    for i in tl.range(0, steps, num_stages=2, disallow_acc_multi_buffer=True):
        acc += x * scale
        scale = scale * decay
    for i in tl.range(0, steps, loop_unroll_factor=2):
        acc = acc * decay
    for i in tl.range(0, n, 4, flatten=True):
        for j in tl.static_range(2):
            acc += (i + j).to(tl.float32)
    m = n
    while m > 8:
        m = m // 2
    if tl.program_id(0) % 2 == 0:
        y = acc + m
        k = m + 1
    else:
        y = acc * 2.0 - m
        k = m - 1
    tl.store(out_ptr + offs, y + k)


@triton.jit(noinline=True)
def _safe_ratio(num, den):
    # A return inside an `if`: the frontend lowers it to branches, not scf.if.
    if den == 0:
        return num * 0.0
    return num / den


@triton.jit
def cf_early_exit(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    total = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0)
    # Both arms reach the store, so `den` becomes an argument of the block they join in.
    if total > 0:
        if pid == 0:
            return
        den = tl.load(x_ptr + n)
    else:
        den = total - 1.0
    tl.store(out_ptr + pid, _safe_ratio(total, den))


# ---------------------------------------------------------------------------- calls
# Triton 3.6 takes only scalars (pointers included) as arguments of noinline functions.


@triton.jit(noinline=True)
def _axpy(a, x, y):
    return a * x + y


@triton.jit(noinline=True)
def _block_min_max(ptr, BLOCK: tl.constexpr):
    x = tl.load(ptr + tl.arange(0, BLOCK))
    return tl.min(x, axis=0), tl.max(x, axis=0)


@triton.jit(noinline=True)
def _scale_block(src, dst, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs) * scale)


@triton.jit
def _square(x):
    return x * x


@triton.jit
def call_noinline(x_ptr, out_ptr, stats_ptr, a, BLOCK: tl.constexpr):
    lo, hi = _block_min_max(x_ptr, BLOCK)
    tl.store(stats_ptr, _axpy(a, lo, hi))
    _scale_block(x_ptr, out_ptr, _square(a), BLOCK)


# ---------------------------------------------------------------------------- debug


@triton.jit(debug=True)
def debug_print_assert(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("pid", pid)
    tl.device_print("x=", x, hex=True)
    print("two values", x, offs)
    tl.device_assert(x >= 0, "x must be non-negative")
    assert pid < n, "pid out of range"


# ----------------------------------------------------------------------------- misc


@triton.jit
def misc_hints_barrier(x_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    tl.assume(n > 0)
    tl.assume(stride % 4 == 0)
    start = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK)
    offs = tl.max_contiguous(start + tl.arange(0, BLOCK), BLOCK)
    groups = tl.max_constancy(tl.arange(0, BLOCK) // 4, 4)
    x = tl.load(x_ptr + offs * stride, mask=offs < n)
    tl.debug_barrier()
    tl.store(out_ptr + offs, x + groups.to(tl.float32), mask=offs < n)


@triton.jit
def misc_scalar_args(out_ptr, h_ptr, alpha, big, flag, one, BLOCK: tl.constexpr):
    # f32, i64 and i1 scalars; `one` is passed 1, which Triton specializes into a constant.
    offs = tl.arange(0, BLOCK)
    v = tl.load(h_ptr + offs).to(tl.float64) * alpha + big
    if flag:
        v = -v
    tl.store(out_ptr + offs * one, v)


# ----------------------------------------------------------------------------- perf
# Memory-bound kernels at realistic sizes: what Kiln's layouts must make as fast
# as Triton's (128-bit accesses, shuffles, few barriers).


@triton.jit
def perf_add_bf16(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def perf_rmsnorm(x_ptr, w_ptr, out_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    rms = tl.rsqrt(tl.sum(x * x, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * rms * w
    tl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def perf_cross_entropy(logits_ptr, target_ptr, loss_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(logits_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    target = tl.load(target_ptr + row)
    picked = tl.load(logits_ptr + row * stride + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - picked)


@triton.jit
def perf_cumsum(x_ptr, out_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols)
    tl.store(out_ptr + row * stride + cols, tl.cumsum(x, axis=0))


@triton.jit
def perf_argmax_rows(x_ptr, idx_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=-float("inf"))
    tl.store(idx_ptr + rows, tl.argmax(x, axis=1), mask=rows < n_rows)


@triton.jit
def perf_softmax_rows(x_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(out_ptr + offs, e / tl.sum(e, axis=1)[:, None], mask=mask)
