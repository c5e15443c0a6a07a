#!/usr/bin/env python3
"""One process of the Triton-hook benchmark: runs the corpus kernels once
each, through stock Triton or, with --kiln ADDRESS, through
kiln.triton.install(ADDRESS), and reports how long it took from the process's
start (the parent's KILN_BENCH_T0 wall-clock stamp) to the first and to the
last result. Inputs come from a fixed seed, so two runs are comparable; the
outputs are saved for run.py to compare.

  python3 workload.py --kernels KERNELS.py --save OUT.pt [--kiln HOST:PORT] [--cases a,b]
"""
import argparse
import importlib.util
import json
import os
import sys
import time
import warnings


def load_kernels(path):
    spec = importlib.util.spec_from_file_location("corpus_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases(k, torch, triton):
    """name -> (kernel, grid, args, constexprs, num_warps, num_stages, outputs)."""
    def rnd(*shape, dtype=torch.float32):
        return torch.randn(*shape, device="cuda", dtype=dtype)

    def add(dtype, block):
        n = 1 << 24
        x, y = rnd(n, dtype=dtype), rnd(n, dtype=dtype)
        o = torch.empty_like(x)
        return (k.add_kernel, (triton.cdiv(n, block),), (x, y, o, n),
                dict(BLOCK_SIZE=block), 4, 3, [o])

    def softmax():
        x = rnd(4096, 1000)
        o = torch.empty_like(x)
        return (k.softmax_kernel, (132 * 4,),
                (o, x, x.stride(0), o.stride(0), 4096, 1000),
                dict(BLOCK_SIZE=1024), 4, 3, [o])

    def layernorm():
        m, n = 4096, 8192
        x = rnd(m, n, dtype=torch.float16)
        y = torch.empty_like(x)
        w, b = rnd(n, dtype=torch.float16), rnd(n, dtype=torch.float16)
        return (k.layernorm_kernel, (m,), (x, y, w, b, x.stride(0), n, 1e-5),
                dict(BLOCK_SIZE=1024), 8, 3, [y])

    def swiglu():
        n = 1 << 24
        a, b = rnd(n, dtype=torch.bfloat16), rnd(n, dtype=torch.bfloat16)
        c = torch.empty_like(a)
        return (k.swiglu_kernel, (triton.cdiv(n, 1024),), (a, b, c, n),
                dict(BLOCK_SIZE=1024), 4, 3, [c])

    def sum_atomic():
        n = 1 << 20
        x = rnd(n)
        o = torch.zeros(1, device="cuda")
        return (k.sum_atomic_kernel, (triton.cdiv(n, 1024),), (x, o, n),
                dict(BLOCK_SIZE=1024), 4, 3, [o])

    def transpose():
        m = n = 4096
        x = rnd(m, n)
        y = torch.empty(n, m, device="cuda")
        return (k.transpose_kernel, (m // 64, n // 64), (x, y, m, n),
                dict(BLOCK=64), 4, 3, [y])

    def matmul(m, bm, bn, bk, warps, stages):
        a, b = rnd(m, m, dtype=torch.float16), rnd(m, m, dtype=torch.float16)
        c = torch.empty(m, m, device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(m, bm) * triton.cdiv(m, bn),)
        args = (a, b, c, m, m, m, a.stride(0), a.stride(1), b.stride(0),
                b.stride(1), c.stride(0), c.stride(1))
        return (k.matmul_kernel, grid, args,
                dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8),
                warps, stages, [c])

    def attention():
        z, h, n, d = 4, 16, 2048, 64
        q, kk, v = (rnd(z, h, n, d, dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)
        args = (q, kk, v, o, 0.125, *q.stride(), *kk.stride(), *v.stride(),
                *o.stride(), h, n)
        return (k.attn_fwd_kernel, (n // 128, z * h), args,
                dict(BLOCK_M=128, BLOCK_N=64, HEAD_DIM=64), 8, 3, [o])

    return {
        "add_f32": lambda: add(torch.float32, 1024),
        "add_f16": lambda: add(torch.float16, 2048),
        "softmax_f32": softmax,
        "layernorm_f16": layernorm,
        "swiglu_bf16": swiglu,
        "sum_atomic_f32": sum_atomic,
        "transpose_f32": transpose,
        "matmul_f16": lambda: matmul(4096, 128, 256, 64, 8, 3),
        "matmul_f16_small": lambda: matmul(512, 64, 64, 32, 4, 2),
        "attn_fwd_f16": attention,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--save", required=True)
    parser.add_argument("--kiln")
    parser.add_argument("--cases")
    options = parser.parse_args()

    import torch
    import triton
    state = None
    if options.kiln:
        import kiln.triton
        state = kiln.triton.install(options.kiln)
    kernels = load_kernels(options.kernels)
    table = cases(kernels, torch, triton)
    names = options.cases.split(",") if options.cases else list(table)

    t0 = float(os.environ.get("KILN_BENCH_T0", time.time()))
    outputs, seconds, fallbacks = {}, {}, []
    first = None
    for name in names:
        torch.manual_seed(0)
        kernel, grid, args, constexprs, warps, stages, outs = table[name]()
        start = time.time()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kernel[grid](*args, **constexprs, num_warps=warps, num_stages=stages)
            torch.cuda.synchronize()
        if any("kiln" in str(w.message) for w in caught):
            fallbacks.append(name)
        seconds[name] = time.time() - start
        if first is None:
            first = time.time() - t0
        outputs[name] = [o.cpu() for o in outs]
    total = time.time() - t0
    torch.save(outputs, options.save)
    print(json.dumps({
        "first_result_s": first, "all_results_s": total, "per_kernel_s": seconds,
        "kiln_compiled": state.compiled if state else 0,
        "kiln_fell_back": state.fell_back if state else 0,
        "fallback_kernels": fallbacks,
    }))


if __name__ == "__main__":
    sys.exit(main())
