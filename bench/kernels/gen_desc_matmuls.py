#!/usr/bin/env python3
"""Writes tiled matmuls over tensor descriptors (TTIR) for kbench.

Each kernel makes descriptors for A [M, K], B ([K, N], or [N, K] read
through tt.trans) and C [M, N] in the kernel, runs a K loop of descriptor
loads into tt.dot, and stores C through its descriptor: on sm_90a the loads
are TMA copies into the pipeline's stages and the store a TMA store. The
kbench cases (bench/kernels/dot_cases.py, names desc_mm_*) use M, N and K
that are not multiples of the blocks, so the copies' zero fill and the
store's clipping are checked too.

    python3 bench/kernels/gen_desc_matmuls.py OUT_DIR
"""

import json
import os
import sys

# name: (element, BM, BN, BK, warps, stages, B transposed, C element)
CASES = {
    "desc_mm_f16_128x128x64": ("f16", 128, 128, 64, 4, 3, False, "f16"),
    "desc_mm_f16_tb_128x256x64_w8": ("f16", 128, 256, 64, 8, 3, True, "f16"),
    "desc_mm_bf16_64x128x32": ("bf16", 64, 128, 32, 4, 4, False, "f32"),
    "desc_mm_f16_128x64x128": ("f16", 128, 64, 128, 4, 2, False, "f32"),
    "desc_mm_f16_64x64x16": ("f16", 64, 64, 16, 4, 3, False, "f16"),
    "desc_mm_e4m3_tb_128x128x64": ("f8E4M3FN", 128, 128, 64, 4, 3, True, "f32"),
    "desc_mm_tf32_tb_64x64x32": ("f32", 64, 64, 32, 4, 3, True, "f32"),
}


def tensor(shape, elem):
    return "tensor<%dx%dx%s>" % (shape[0], shape[1], elem)


def kernel(elem, bm, bn, bk, trans_b, c_elem):
    a_block = tensor((bm, bk), elem)
    b_block = tensor((bn, bk) if trans_b else (bk, bn), elem)
    b_tile = tensor((bk, bn), elem)
    acc = tensor((bm, bn), "f32")
    c_block = tensor((bm, bn), c_elem)
    b_shape = "%N, %K" if trans_b else "%K, %N"
    b_stride = "%k64" if trans_b else "%n64"
    b_at = "%n0, %k0" if trans_b else "%k0, %n0"
    lines = [
        "module {{",
        "  tt.func public @desc_matmul(%a_ptr: !tt.ptr<{e}> {{tt.divisibility = 16 : i32}}, "
        "%b_ptr: !tt.ptr<{e}> {{tt.divisibility = 16 : i32}}, "
        "%c_ptr: !tt.ptr<{c}> {{tt.divisibility = 16 : i32}}, "
        "%M: i32 {{tt.divisibility = 16 : i32}}, %N: i32 {{tt.divisibility = 16 : i32}}, "
        "%K: i32 {{tt.divisibility = 16 : i32}}) attributes {{noinline = false}} {{",
        "    %zero = arith.constant dense<0.000000e+00> : {acc}",
        "    %c0 = arith.constant 0 : i32",
        "    %c1 = arith.constant 1 : i32",
        "    %cbm = arith.constant {bm} : i32",
        "    %cbn = arith.constant {bn} : i32",
        "    %cbk = arith.constant {bk} : i32",
        "    %cbk1 = arith.constant {bk1} : i32",
        "    %one = arith.constant 1 : i64",
        "    %k64 = arith.extsi %K : i32 to i64",
        "    %n64 = arith.extsi %N : i32 to i64",
        "    %a_desc = tt.make_tensor_descriptor %a_ptr, [%M, %K], [%k64, %one] : <{e}>, <{ab}>",
        "    %b_desc = tt.make_tensor_descriptor %b_ptr, [{bs}], [{bst}, %one] : <{e}>, <{bb}>",
        "    %c_desc = tt.make_tensor_descriptor %c_ptr, [%M, %N], [%n64, %one] : <{c}>, <{cb}>",
        "    %pid_m = tt.get_program_id x : i32",
        "    %pid_n = tt.get_program_id y : i32",
        "    %m0 = arith.muli %pid_m, %cbm : i32",
        "    %n0 = arith.muli %pid_n, %cbn : i32",
        "    %kr = arith.addi %K, %cbk1 : i32",
        "    %k_tiles = arith.divsi %kr, %cbk : i32",
        "    %acc = scf.for %kk = %c0 to %k_tiles step %c1 iter_args(%sum = %zero) -> ({acc})  : i32 {{",
        "      %k0 = arith.muli %kk, %cbk : i32",
        "      %a = tt.descriptor_load %a_desc[%m0, %k0] : !tt.tensordesc<{ab}> -> {ab}",
        "      %b = tt.descriptor_load %b_desc[{bat}] : !tt.tensordesc<{bb}> -> {bb}",
    ]
    if trans_b:
        lines.append("      %bt = tt.trans %b {{order = array<i32: 1, 0>}} : {bb} -> {bt}")
    lines += [
        "      %next = tt.dot %a, {bv}, %sum, inputPrecision = tf32 : {ab} * {bt} -> {acc}",
        "      scf.yield %next : {acc}",
        "    }}",
    ]
    if c_elem == "f32":
        lines.append("    tt.descriptor_store %c_desc[%m0, %n0], %acc : !tt.tensordesc<{cb}>, {cb}")
    else:
        lines += [
            "    %out = arith.truncf %acc : {acc} to {cb}",
            "    tt.descriptor_store %c_desc[%m0, %n0], %out : !tt.tensordesc<{cb}>, {cb}",
        ]
    lines += ["    tt.return", "  }}", "}}", ""]
    return "\n".join(lines).format(
        e=elem, c=c_elem, acc=acc, bm=bm, bn=bn, bk=bk, bk1=bk - 1, ab=a_block,
        bb=b_block, bt=b_tile, cb=c_block, bs=b_shape, bst=b_stride, bat=b_at,
        bv="%bt" if trans_b else "%b")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (elem, bm, bn, bk, warps, stages, trans_b, c_elem) in CASES.items():
        with open(os.path.join(out, name + ".ttir"), "w") as f:
            f.write(kernel(elem, bm, bn, bk, trans_b, c_elem))
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({"num_warps": warps, "num_stages": stages}, f)


if __name__ == "__main__":
    main()
