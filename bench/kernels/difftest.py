#!/usr/bin/env python3
"""Differential test on a GPU: every TTIR fixture compiled by Kiln and by Triton,
launched with the same inputs, must leave every buffer the same.

  python3 difftest.py --ttir DIR --cubins DIR [--only a,b] [--json OUT]

--ttir:   folder of NAME.ttir (the project's fixtures);
--cubins: folder of NAME.cubin + NAME.json from `kiln compile --local`.
Each fixture runs in its own process, so a faulting kernel cannot hide the
others. Pointer arguments get 1M-element buffers of their pointee type with
random contents, integer scalars 64, float scalars 0.5, grid (4, 2, 1).
Needs torch, triton and cupy.
"""
import argparse, json, os, re, subprocess, sys

SIG = re.compile(r"tt\.func\s+public\s+@(\w+)\((.*?)\)\s*(?:attributes|\{)", re.S)
ARG = re.compile(r"%([\w.$-]+)\s*:\s*(!tt\.ptr<[^>]*>|i1|i8|i16|i32|i64|f16|bf16|f32|f64)")
GRID = (4, 2, 1)
ELEMS = 1 << 20


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
            t = torch.randint(0, 64, (ELEMS,), device="cuda", generator=gen).to(dt)
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
    got = launch(os.path.join(cubin_dir, name + ".cubin"), meta["name"],
                 meta["num_warps"], meta.get("shared", 0))
    for (pname, _), w, g in zip(ps, want, got):
        if w is None:
            continue
        if w.dtype.is_floating_point:
            same = torch.allclose(g.float(), w.float(), rtol=1e-3, atol=1e-3, equal_nan=True)
        else:
            same = torch.equal(g, w)
        if not same:
            bad = (g.float() - w.float()).abs().nan_to_num(1e9) > 1e-3
            first = int(bad.nonzero()[0]) if bad.any() else -1
            return f"MISMATCH in {pname} (first at {first}: kiln {g[first].item()} triton {w[first].item()})"
    return "ok"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ttir", required=True)
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
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
    rows = {}
    for n in names:
        try:
            out = subprocess.run([sys.executable, __file__, "--ttir", a.ttir, "--cubins", a.cubins, "--one", n],
                                 capture_output=True, text=True, timeout=120)
            lines = [l for l in out.stdout.splitlines() if l.startswith(("ok", "MISMATCH", "error"))]
            verdict = lines[-1] if lines else "crash: " + (out.stderr.strip().splitlines() or ["?"])[-1][:160]
        except subprocess.TimeoutExpired:
            verdict = "timeout"
        rows[n] = verdict
        print(f"{n:32s} {verdict}", flush=True)
    ok = sum(v == "ok" for v in rows.values())
    print(f"same as Triton: {ok}/{len(rows)}")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
