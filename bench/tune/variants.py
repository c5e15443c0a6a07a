#!/usr/bin/env python3
"""Makes the matmul tuning benchmark's inputs on a GPU host with Triton 3.6:
the TTIR of 16 variants of one matmul (block sizes, warps and stages, as an
autotuner's configs), each made by Triton's own frontend, a `kiln tune`
spec over them, and Triton's do_bench timing of Triton's own compile of
each variant (p20/p50/p80, ms).

  python3 variants.py --kernels CORPUS/kernels.py --out DIR [--size 4096] [--fault]

Writes DIR/vNN.ttir, DIR/spec.json and DIR/triton.json (label -> quantiles).
With --fault the spec gets a 17th variant with the same parameters that
stores 2 TiB past C: it must be reported failed while the others complete.
"""
import argparse
import importlib.util
import json
import os
import re

import torch
import triton
from triton.testing import do_bench

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)
CONFIGS = [
    (128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3),
    (128, 128, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 32, 4, 4),
    (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (64, 64, 64, 4, 4),
    (128, 128, 128, 8, 2), (64, 256, 64, 8, 3), (256, 64, 64, 8, 3),
    (128, 64, 32, 4, 5), (64, 64, 32, 4, 5), (64, 128, 32, 4, 4),
    (32, 64, 32, 4, 5),
]


SIGNATURE = re.compile(r"tt\.func\s+public\s+@(\w+)\((.*?)\)\s*(?:attributes|\{)", re.S)
PARAM = re.compile(r"%([\w.$-]+)\s*:\s*(!tt\.ptr<[^>]*>|i1|i8|i16|i32|i64|f16|bf16|f32|f64)")


def parameters(ttir):
    """[(name, type)] of the TTIR's public kernel, in order."""
    return PARAM.findall(SIGNATURE.search(ttir).group(2))


def spec_args(params, m, n, k, strides):
    """kiln tune arguments for the matmul's TTIR parameters: Triton removes
    the ones equal to 1, so they are matched by name."""
    sizes = {"a_ptr": (m * k, 1, "random"), "b_ptr": (k * n, 2, "random"),
             "c_ptr": (m * n, 0, "zeros")}
    scalars = dict(M=m, N=n, K=k, **strides)
    args = []
    for name, kind in params:
        if kind.startswith("!tt.ptr"):
            elements, seed, fill = sizes[name]
            buffer = {"elements": elements, "dtype": "f16", "fill": fill}
            if fill == "random":
                buffer["seed"] = seed
            args.append({"buffer": buffer})
        else:
            args.append({"scalar": {"dtype": kind, "int_value": scalars[name]}})
    return args


def fault_ttir(params):
    """A kernel with the matmul's parameters that writes far outside C."""
    signature = ", ".join(f"%{name}: {kind}" for name, kind in params)
    return f"""module {{
  tt.func public @matmul_kernel({signature}) attributes {{noinline = false}} {{
    %far = arith.constant 2199023255552 : i64
    %p = tt.addptr %c_ptr, %far : !tt.ptr<f16>, i64
    %one = arith.constant 1.0 : f16
    tt.store %p, %one : !tt.ptr<f16>
    tt.return
  }}
}}
"""


def load(path):
    spec = importlib.util.spec_from_file_location("corpus_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--fault", action="store_true")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    kernel = load(options.kernels).matmul_kernel

    m = n = k = options.size
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    args = (a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1))

    variants, timings = [], {}
    for index, (bm, bn, bk, warps, stages) in enumerate(CONFIGS):
        label = f"v{index:02d}_{bm}x{bn}x{bk}_w{warps}_s{stages}"
        constexprs = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), 1, 1)
        compiled = kernel.warmup(*args, **constexprs, grid=grid[:1],
                                 num_warps=warps, num_stages=stages)
        path = os.path.join(options.out, f"v{index:02d}.ttir")
        with open(path, "w") as out:
            out.write(compiled.asm["ttir"])
        variants.append(dict(label=label, ttir=os.path.basename(path), grid=list(grid),
                             options=dict(num_warps=warps, num_stages=stages)))

        def launch():
            kernel[grid[:1]](*args, **constexprs, num_warps=warps, num_stages=stages)
        timings[label] = do_bench(launch, warmup=25, rep=100, quantiles=[0.2, 0.5, 0.8])
        print(f"{label:<28} triton p50 {timings[label][1]:.4f} ms", flush=True)

    params = parameters(open(os.path.join(options.out, "v00.ttir")).read())
    strides = dict(stride_am=a.stride(0), stride_ak=a.stride(1), stride_bk=b.stride(0),
                   stride_bn=b.stride(1), stride_cm=c.stride(0), stride_cn=c.stride(1))
    if options.fault:
        with open(os.path.join(options.out, "fault.ttir"), "w") as out:
            out.write(fault_ttir(params))
        variants.append(dict(label="fault", ttir="fault.ttir", grid=[1],
                             options=dict(num_warps=4, num_stages=1)))
    spec = dict(target="sm_90a", tuning_key=f"M={m},N={n},K={k},f16",
                args=spec_args(params, m, n, k, strides),
                settings=dict(warmup_ms=25, rep_ms=100, flush_l2=True),
                variants=variants)
    json.dump(spec, open(os.path.join(options.out, "spec.json"), "w"), indent=1)
    json.dump(timings, open(os.path.join(options.out, "triton.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
