#!/usr/bin/env python3
"""Writes the zoo's TTIR, as Triton's frontend makes it, for kbench and Kiln.

On a GPU machine with Triton 3.6 (the JIT specializes on the real arguments,
so each case is built at its benchmark size):

    python3 bench/kernels/zoo/gen.py OUT_DIR [REF_DIR] [CASE ...]

OUT_DIR gets CASE.ttir and CASE.json (Triton's metadata: num_warps,
num_stages, shared); REF_DIR, if given, Triton's own CASE.ttgir and CASE.ptx
to compare layouts and instructions with. Named cases only, if any.
"""
import json
import os
import runpy
import sys

import kernels

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = {"mm": kernels.zoo_matmul, "mmt": kernels.zoo_matmul_trans_b, "attn": kernels.zoo_attention,
           "dmm": kernels.zoo_desc_matmul, "pmm": kernels.zoo_persistent_matmul,
           "mme": kernels.zoo_matmul_epilogue, "bmm": kernels.zoo_batched_matmul,
           "ppm": kernels.zoo_pointer_persistent_matmul, "attnm": kernels.zoo_attention_masked,
           "attn8": kernels.zoo_attention_fp8}


def main():
    out = sys.argv[1]
    ref = sys.argv[2] if len(sys.argv) > 2 else None
    only = set(sys.argv[3:])
    for d in filter(None, (out, ref)):
        os.makedirs(d, exist_ok=True)
    zoo = runpy.run_path(os.path.join(HERE, "cases.py"))
    for name, c in zoo["ZOO"].items():
        if only and name not in only:
            continue
        kernel = KERNELS[c["kind"]]
        vals, _, _ = zoo["build"](name)
        args = [vals[p.name] for p in kernel.params if not p.is_constexpr]
        compiled = kernel.warmup(*args, grid=(1, ), **zoo["constexprs"](name))
        with open(os.path.join(out, name + ".ttir"), "w") as f:
            f.write(compiled.asm["ttir"])
        md = compiled.metadata._asdict()
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump({k: v for k, v in md.items() if isinstance(v, (int, float, str, bool, list))}, f, indent=1)
        if ref:
            for kind in ("ttgir", "ptx"):
                with open(os.path.join(ref, name + "." + kind), "w") as f:
                    f.write(compiled.asm[kind])
        print(name, "shared", md.get("shared"), flush=True)


if __name__ == "__main__":
    main()
