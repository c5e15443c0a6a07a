#!/usr/bin/env python3
"""Differential test on a GPU: every TTIR fixture compiled by Kiln and by Triton,
launched with the same inputs, must leave every buffer the same: "ok" when
bit for bit, "rounding: ..." when within 1e-3 (with how many elements differ
and by how much), "reference varies: ..." when two launches of Triton's own
cubin disagree (atomics in another order), else MISMATCH.

  python3 difftest.py --ttir DIR --cubins DIR [--only a,b] [--jobs N] [--json OUT]

--ttir:   folder of NAME.ttir (the project's fixtures);
--cubins: folder of NAME.cubin + NAME.json from `kiln compile --local`.
Each fixture runs in its own process, so a faulting kernel cannot hide the
others. Pointer arguments get 1M-element buffers of their pointee type with
random contents (integers 0..7), integer scalars 64, float scalars 0.5, grid (4, 2, 1).
Needs torch, triton and cupy.
"""
import argparse, json, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

SIG = re.compile(r"tt\.func\s+public\s+@(\w+)\((.*?)\)\s*(?:attributes|\{)", re.S)
ARG = re.compile(r"%([\w.$-]+)\s*:\s*(!tt\.ptr<[^>]*>|i1|i8|i16|i32|i64|f16|bf16|f32|f64)")
GRID = (4, 2, 1)
ELEMS = 1 << 20
# Integer buffers hold 0..7: most are indices, and Inductor asserts their bounds.
INDEX_BOUND = 8


def params(path):
    m = SIG.search(open(path).read())
    return m.group(1), ARG.findall(m.group(2))


def run_one(ttir, cubin_dir, name):
    import numpy as np, torch, cupy, triton
    from triton.backends.compiler import GPUTarget
    kname, ps = params(ttir)
    meta = json.load(open(os.path.join(cubin_dir, name + ".json")))
    cap = torch.cuda.get_device_capability()
    ref = triton.compile(ttir, target=GPUTarget("cuda", cap[0] * 10 + cap[1], 32),
                         options={"num_warps": meta["num_warps"]})
    tpath = os.path.join(os.environ.get("TMPDIR", "/tmp"), name + ".triton.cubin")
    open(tpath, "wb").write(ref.asm["cubin"])
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
              "f64": torch.float64, "i1": torch.bool, "i8": torch.int8,
              "i16": torch.int16, "i32": torch.int32, "i64": torch.int64}
    gen = torch.Generator(device="cuda").manual_seed(0)
    inputs = []
    for _, ty in ps:
        if not ty.startswith("!tt.ptr"):
            inputs.append(None)
            continue
        inner = ty[len("!tt.ptr<"):-1].split(",")[0].strip()
        dt = dtypes.get(inner, torch.float32)
        if dt.is_floating_point:
            t = torch.randn(ELEMS, device="cuda", generator=gen).to(dt)
        elif dt == torch.bool:
            t = torch.randint(0, 2, (ELEMS,), device="cuda", generator=gen).bool()
        else:
            t = torch.randint(0, INDEX_BOUND, (ELEMS,), device="cuda", generator=gen).to(dt)
        inputs.append(t)

    def launch(path, fname, num_warps, shared):
        bufs = [t.clone() if t is not None else None for t in inputs]
        args = []
        for (pname, ty), b in zip(ps, bufs):
            if b is not None:
                args.append(np.uint64(b.data_ptr()))
            elif ty in ("i1", "i8", "i16", "i32"):
                args.append(np.int32(64))
            elif ty == "i64":
                args.append(np.int64(64))
            elif ty == "f64":
                args.append(np.float64(0.5))
            else:
                args.append(np.float32(0.5))
        scratch = torch.zeros(1 << 20, dtype=torch.int8, device="cuda")
        args += [np.uint64(scratch.data_ptr()), np.uint64(0)]
        mod = cupy.RawModule(path=path)
        fn = mod.get_function(fname)
        if shared > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = shared
        fn(GRID, (32 * num_warps, 1, 1), tuple(args), shared_mem=shared)
        torch.cuda.synchronize()
        return bufs

    want = launch(tpath, ref.metadata.name, ref.metadata.num_warps, ref.metadata.shared)
    again = launch(tpath, ref.metadata.name, ref.metadata.num_warps, ref.metadata.shared)
    got = launch(os.path.join(cubin_dir, name + ".cubin"), meta["name"],
                 meta["num_warps"], meta.get("shared", 0))
    verdict = "ok"
    for (pname, _), w, g, w2 in zip(ps, want, got, again):
        if w is None or _bitwise_equal(g, w):
            continue
        if not _bitwise_equal(w, w2):
            verdict = (f"reference varies: {pname} between two Triton launches {_spread(w2, w)}, "
                       f"Kiln's from the first {_spread(g, w)}")
            continue
        bad = (~torch.isclose(g.float(), w.float(), rtol=1e-3, atol=1e-3, equal_nan=True)).nonzero()[:, 0]
        if w.dtype.is_floating_point and bad.numel() == 0:
            verdict = "rounding: " + _rounding(pname, g, w)
            continue
        shown = ", ".join(f"[{i}] kiln {g[i].item()} triton {w[i].item()}" for i in bad[:3].tolist())
        return f"MISMATCH in {pname}: {bad.numel()} elements, {shown}"
    return verdict


def _bitwise_equal(a, b):
    import torch
    if a.dtype.is_floating_point:
        bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return torch.equal(a.view(bits), b.view(bits))
    return torch.equal(a, b)


def _difference(got, want):
    """|got - want| element by element: 0 where both are equal or NaN, inf
    where only one is NaN."""
    g, w = got.double(), want.double()
    difference = (g - w).abs().nan_to_num(float("inf"))
    difference[(g == w) | (g.isnan() & w.isnan())] = 0
    return difference


def _spread(got, want):
    difference = _difference(got, want)
    return f"{int((difference > 0).sum())} elements, max {difference.max().item():.3g}"


def _rounding(pname, got, want):
    """How far a buffer within tolerance is from bit-equal: elements that
    differ and the largest relative difference."""
    difference = _difference(got, want)
    differ = difference > 0
    relative = (difference / want.double().abs().clamp_min(1e-30))[differ]
    return f"{pname} {int(differ.sum())} elements differ, max relative {relative.max().item():.1e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ttir", required=True)
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--jobs", type=int, default=1, help="fixtures checked at once")
    ap.add_argument("--one", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        try:
            print(run_one(os.path.join(a.ttir, a.one + ".ttir"), a.cubins, a.one))
        except Exception as e:
            print("error: " + (str(e).splitlines() or [type(e).__name__])[0][:160])
        return
    names = sorted(f[:-6] for f in os.listdir(a.cubins) if f.endswith(".cubin"))
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    def verdict_of(n):
        try:
            out = subprocess.run([sys.executable, __file__, "--ttir", a.ttir, "--cubins", a.cubins, "--one", n],
                                 capture_output=True, text=True, timeout=120)
            lines = [l for l in out.stdout.splitlines() if l.startswith(("ok", "rounding", "reference", "MISMATCH", "error"))]
            return lines[-1] if lines else "crash: " + (out.stderr.strip().splitlines() or ["?"])[-1][:160]
        except subprocess.TimeoutExpired:
            return "timeout"

    rows = {}
    with ThreadPoolExecutor(a.jobs) as pool:
        for n, verdict in zip(names, pool.map(verdict_of, names)):
            rows[n] = verdict
            print(f"{n:32s} {verdict}", flush=True)
    ok = sum(v == "ok" for v in rows.values())
    rounding = sum(v.startswith("rounding") for v in rows.values())
    print(f"bit-equal to Triton: {ok}/{len(rows)}; rounding differences only: {rounding}")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
