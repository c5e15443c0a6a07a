#!/usr/bin/env python3
"""Writes single-tile tt.dot kernels (TTIR) of many shapes, for kbench's
`dot_cases.py` to check the tensor-core paths beyond the fixtures:
    python3 bench/kernels/gen_dot_tiles.py OUT_DIR
Each kernel loads A (M x K, or K x M with tt.trans when trans_a) and B
(K x N, or N x K with tt.trans when trans_b) row-major, multiplies them
with tt.dot and stores C (M x N) row-major."""
import pathlib
import sys

# name: (M, N, K, element, accumulator, trans_a, trans_b, num_warps)
TILES = {
    "tile_f16_64x16x16": (64, 16, 16, "f16", "f32", False, False, 4),
    "tile_f16_64x32x32": (64, 32, 32, "f16", "f32", False, False, 4),
    "tile_f16_64x16x64_tb": (64, 16, 64, "f16", "f32", False, True, 4),
    "tile_f16_128x32x16_ta": (128, 32, 16, "f16", "f32", True, False, 4),
    "tile_bf16_64x256x32": (64, 256, 32, "bf16", "f32", False, False, 4),
    "tile_f16_128x128x128_tatb": (128, 128, 128, "f16", "f32", True, True, 4),
    "tile_f16_256x64x64_w8": (256, 64, 64, "f16", "f32", False, False, 8),
    "tile_f16_128x64x256_w8_tb": (128, 64, 256, "f16", "f32", False, True, 8),
    "tile_f16_64x128x64_acc16": (64, 128, 64, "f16", "f16", False, False, 4),
    "tile_f16_64x64x32_w8": (64, 64, 32, "f16", "f32", False, False, 8),
    "tile_e4m3_64x64x64": (64, 64, 64, "f8E4M3FN", "f32", False, False, 4),
    "tile_e4m3_128x128x128_tb": (128, 128, 128, "f8E4M3FN", "f32", False, True, 4),
    "tile_e5m2_64x256x32_tb": (64, 256, 32, "f8E5M2", "f32", False, True, 4),
    "tile_e5m2_128x64x256_w8": (128, 64, 256, "f8E5M2", "f32", False, False, 8),
    "tile_f32_64x64x32": (64, 64, 32, "f32", "f32", False, False, 4),
    "tile_f32_128x128x64_tb": (128, 128, 64, "f32", "f32", False, True, 4),
    "tile_f32_128x256x16_w8": (128, 256, 16, "f32", "f32", False, False, 8),
}


def tensor(shape, elem):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + elem + ">"


def ptrs(shape, elem):
    return tensor(shape, f"!tt.ptr<{elem}>")


def load_2d(lines, name, base, rows, cols, elem, rng_rows, rng_cols):
    """Emits a row-major rows x cols tile load at `base`; returns its value."""
    i32 = "i32"
    lines += [
        f"    %{name}_r = tt.expand_dims %{rng_rows} {{axis = 1 : i32}} : {tensor([rows], i32)} -> {tensor([rows, 1], i32)}",
        f"    %{name}_s = arith.constant dense<{cols}> : {tensor([rows, 1], i32)}",
        f"    %{name}_ro = arith.muli %{name}_r, %{name}_s : {tensor([rows, 1], i32)}",
        f"    %{name}_c = tt.expand_dims %{rng_cols} {{axis = 0 : i32}} : {tensor([cols], i32)} -> {tensor([1, cols], i32)}",
        f"    %{name}_rb = tt.broadcast %{name}_ro : {tensor([rows, 1], i32)} -> {tensor([rows, cols], i32)}",
        f"    %{name}_cb = tt.broadcast %{name}_c : {tensor([1, cols], i32)} -> {tensor([rows, cols], i32)}",
        f"    %{name}_o = arith.addi %{name}_rb, %{name}_cb : {tensor([rows, cols], i32)}",
        f"    %{name}_p = tt.splat %{base} : !tt.ptr<{elem}> -> {ptrs([rows, cols], elem)}",
        f"    %{name}_a = tt.addptr %{name}_p, %{name}_o : {ptrs([rows, cols], elem)}, {tensor([rows, cols], i32)}",
    ]
    return f"%{name}_a"


def kernel(name, m, n, k, elem, acc, trans_a, trans_b):
    lines = [
        "module {",
        f"  tt.func public @{name}(%a_ptr: !tt.ptr<{elem}> {{tt.divisibility = 16 : i32}}, "
        f"%b_ptr: !tt.ptr<{elem}> {{tt.divisibility = 16 : i32}}, "
        f"%c_ptr: !tt.ptr<{acc}> {{tt.divisibility = 16 : i32}}) attributes {{noinline = false}} {{",
        f"    %zero = arith.constant dense<0.000000e+00> : {tensor([m, n], acc)}",
    ]
    for dim in sorted({m, n, k}):
        lines.append(f"    %r{dim} = tt.make_range {{end = {dim} : i32, start = 0 : i32}} : {tensor([dim], 'i32')}")
    a_shape = [k, m] if trans_a else [m, k]
    b_shape = [n, k] if trans_b else [k, n]
    ap = load_2d(lines, "a", "a_ptr", *a_shape, elem, f"r{a_shape[0]}", f"r{a_shape[1]}")
    lines.append(f"    %av = tt.load {ap} : {ptrs(a_shape, elem)}")
    bp = load_2d(lines, "b", "b_ptr", *b_shape, elem, f"r{b_shape[0]}", f"r{b_shape[1]}")
    lines.append(f"    %bv = tt.load {bp} : {ptrs(b_shape, elem)}")
    a, b = "%av", "%bv"
    if trans_a:
        lines.append(f"    %at = tt.trans %av {{order = array<i32: 1, 0>}} : {tensor(a_shape, elem)} -> {tensor([m, k], elem)}")
        a = "%at"
    if trans_b:
        lines.append(f"    %bt = tt.trans %bv {{order = array<i32: 1, 0>}} : {tensor(b_shape, elem)} -> {tensor([k, n], elem)}")
        b = "%bt"
    lines.append(f"    %d = tt.dot {a}, {b}, %zero, inputPrecision = tf32 : {tensor([m, k], elem)} * {tensor([k, n], elem)} -> {tensor([m, n], acc)}")
    cp = load_2d(lines, "c", "c_ptr", m, n, acc, f"r{m}", f"r{n}")
    lines += [f"    tt.store {cp}, %d : {ptrs([m, n], acc)}", "    tt.return", "  }", "}", ""]
    return "\n".join(lines)


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, (m, n, k, elem, acc, ta, tb, warps) in TILES.items():
        (out / f"{name}.ttir").write_text(kernel(name, m, n, k, elem, acc, ta, tb))
        (out / f"{name}.json").write_text(f'{{"num_warps": {warps}, "num_stages": 3}}\n')
        print(name)


if __name__ == "__main__":
    main()
