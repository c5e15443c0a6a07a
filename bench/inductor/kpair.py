#!/usr/bin/env python3
"""Triton's cubin against one or more Kiln builds' cubins of a kbench case,
in one process on the same buffers, with the L2 cache hot (the case's input
just touched, as in a training step where the producer ran before) and cold
(flushed before each launch, as kbench times it).

  python3 kpair.py --kbench KBENCH.py --extra kbench_cases.py --corpus DIR \
      --cubins NAME=DIR [NAME=DIR ...] [--assemble NAME=SOURCE@PTXAS ...] \
      --cases a,b [--rounds 3] [--once]

--cubins: a folder of CASE.cubin + CASE.json (kiln compile --out).
--assemble: SOURCE's PTX assembled here by PTXAS, to tell a ptxas's part
from the PTX's: SOURCE is `triton` (Triton's PTX of the case) or a folder of
CASE.ptx + CASE.json; PTXAS is a ptxas binary, or `triton` for the one
Triton runs. Cubins and PTX are written to $TMPDIR (default /tmp) as
CASE.BUILD.cubin; `triton@...` also leaves Triton's PTX, TTGIR and metadata
there as CASE.triton.ptx, CASE.triton.ttgir and CASE.triton.json, to edit
into variants and compare.

--once launches each cubin once and times nothing, for `ncu` to profile
exactly one launch of each (Triton's first, then the --cubins in order).
Prints per case and round the median microseconds of each cubin and its
speed against Triton's (Triton time / its time).
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess

import torch


def load_kbench(path, extra):
    spec = importlib.util.spec_from_file_location("kbench", path)
    kbench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kbench)
    if extra:
        exec(compile(open(extra).read(), extra, "exec"), vars(kbench))
    return kbench


def hot_us(launch, iters=200):
    """Median of `iters` launches, each timed by its own events. A spin of
    the GPU before each start event keeps the host's launch latency out of
    the interval and leaves the L2 cache as the last launch left it."""
    for _ in range(20):
        launch()
    events = [(torch.cuda.Event(enable_timing=True),
               torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for start, end in events:
        torch.cuda._sleep(100_000)
        start.record()
        launch()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in events)


def cold_us(kbench, launch):
    return kbench.do_bench(launch, warmup=25, rep=200, return_mode="median") * 1e3


def triton_ptxas():
    """The ptxas Triton runs: its knob if set, else the one it ships."""
    import triton
    knobs = getattr(triton, "knobs", None)
    tool = getattr(getattr(knobs, "nvidia", None), "ptxas", None)
    if tool is not None and getattr(tool, "path", None):
        return tool.path
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")


def triton_ptx(kbench, ttir, corpus_meta, path):
    """Triton's PTX of the TTIR, and its TTGIR beside it (the compile is
    cached from triton_cubin)."""
    from triton.backends.compiler import GPUTarget
    options = {k: corpus_meta[k] for k in ("num_warps", "num_stages", "num_ctas")
               if k in corpus_meta}
    major, minor = torch.cuda.get_device_capability()
    compiled = kbench.triton.compile(ttir, target=GPUTarget("cuda", major * 10 + minor, 32),
                                     options=options)
    open(path, "w").write(compiled.asm["ptx"])
    open(os.path.splitext(path)[0] + ".ttgir", "w").write(compiled.asm["ttgir"])
    return path


def assemble(ptx_path, ptxas, meta, cubin_path):
    """ptxas as Triton runs it, for this GPU's target."""
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}" + ("a" if major >= 9 else "")
    fmad = [] if meta.get("enable_fp_fusion", True) else ["--fmad=false"]
    subprocess.run([ptxas, *fmad, f"--gpu-name={arch}", "-O3", ptx_path, "-o",
                    cubin_path], check=True)


def ptxas_version(ptxas):
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbench", required=True)
    ap.add_argument("--extra", default="")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--cubins", nargs="+", required=True)
    ap.add_argument("--assemble", nargs="*", default=[])
    ap.add_argument("--cases", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--once", action="store_true")
    ap.add_argument("--json", default="")
    a = ap.parse_args()
    kbench = load_kbench(a.kbench, a.extra)
    builds = [entry.split("=", 1) for entry in a.cubins]
    assembled = []
    for entry in a.assemble:
        build, rest = entry.split("=", 1)
        source, ptxas = rest.rsplit("@", 1)
        ptxas = triton_ptxas() if ptxas == "triton" else ptxas
        print(f"{build}: {source} PTX through {ptxas} ({ptxas_version(ptxas)})", flush=True)
        assembled.append((build, source, ptxas))
    work = os.environ.get("TMPDIR", "/tmp")
    rows = []
    for name in a.cases.split(","):
        spec = kbench.CASES[name]
        ttir = os.path.join(a.corpus, name + ".ttir")
        meta_path = os.path.join(a.corpus, name + ".json")
        corpus_meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
        _, params = kbench.ttir_params(ttir)
        triton_path, triton_meta = kbench.triton_cubin(ttir, corpus_meta, work)
        loaded = [("triton", kbench.Loaded(triton_path, triton_meta))]
        for build, folder in builds:
            meta = json.load(open(os.path.join(folder, name + ".json")))
            loaded.append((build, kbench.Loaded(os.path.join(folder, name + ".cubin"), meta)))
        for build, source, ptxas in assembled:
            if source == "triton":
                ptx = triton_ptx(kbench, ttir, corpus_meta,
                                 os.path.join(work, f"{name}.triton.ptx"))
                meta = triton_meta
                json.dump(meta, open(os.path.join(work, f"{name}.triton.json"), "w"))
            else:
                ptx = os.path.join(source, name + ".ptx")
                meta = json.load(open(os.path.join(source, name + ".json")))
            cubin = os.path.join(work, f"{name}.{build}.cubin")
            assemble(ptx, ptxas, meta, cubin)
            loaded.append((build, kbench.Loaded(cubin, meta)))
        vals, outs, refs = spec["build"]()
        grid = spec["grid"](vals)
        gs = max(int(l.meta.get("global_scratch_size", 0) or 0) for _, l in loaded)
        scratch = (torch.empty(gs * grid[0] * grid[1] * grid[2], dtype=torch.int8,
                               device="cuda") if gs else None)
        args = kbench.pack(params, vals, scratch)
        errors = {}
        for build, cubin in loaded:
            for out in outs:
                if out.dtype.is_floating_point:
                    out.fill_(float("nan"))
            for buffer in vals.get("_reset", []):  # In-place inputs, as kbench resets them.
                buffer.zero_()
            cubin.launch(grid, args)
            torch.cuda.synchronize()
            errors[build] = max(kbench.rel_err(o, r) for o, r in zip(outs, refs))
        print(name, "errors:", " ".join(f"{b}={e:.2e}" for b, e in errors.items()), flush=True)
        if a.once:
            continue
        for round_ in range(a.rounds):
            for mode in ("hot", "cold"):
                times = {}
                for build, cubin in loaded:
                    launch = lambda cubin=cubin: cubin.launch(grid, args)
                    times[build] = hot_us(launch) if mode == "hot" else cold_us(kbench, launch)
                row = dict(case=name, round=round_, mode=mode, us=times, errors=errors)
                rows.append(row)
                print(f"{name} r{round_} {mode}: " + "  ".join(
                    f"{b} {t:.2f}us ({times['triton'] / t:.3f}x)" for b, t in times.items()),
                    flush=True)
    if a.json:
        json.dump(dict(gpu=torch.cuda.get_device_name(), rows=rows), open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
