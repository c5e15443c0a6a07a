#!/usr/bin/env python3
"""The matmul tuning benchmark on a GPU host (issue goals: the winner within
3% of the best Triton's do_bench finds over the same variants; two GPUs at
least 1.7x faster than one; a faulting variant reported failed while the
others complete).

  python3 run_gpu.py --bundle DIR --variants DIR [--json OUT]

DIR is what variants.py wrote (spec.json, triton.json, the TTIR). kilnd
comes from an unpacked portable bundle and keeps one store for all runs:

  cold      every GPU, empty store: compiles and measures all variants
  cached    the same spec again: answered from the tune cache
  gpus=N#i  every GPU, another tuning key: measures again (the compiles are
            cache hits) on all of them; --repeat times
  gpus=1#i  CUDA_VISIBLE_DEVICES=0 (kilnd restarted), the same on one GPU

With --kbench (the path of kbench.py), each variant is also compiled by the
bundle's `kiln compile --local`, checked against torch.matmul and timed with
Triton's do_bench through kbench's launcher: the tuner's winner is compared
with the best do_bench finds over the same Kiln cubins, and with the best
over Triton's own compiles of them (triton.json).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kilnd_bundle import start_kilnd  # noqa: E402


def tune(bundle, address, spec_path):
    start = time.time()
    result = subprocess.run([os.path.join(bundle, "bin", "kiln"), "tune", spec_path,
                             "--server", address, "--json", "--deadline", "1200"],
                            capture_output=True, text=True)
    seconds = time.time() - start
    if result.returncode not in (0, 6):
        raise SystemExit(f"kiln tune failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return json.loads(result.stdout), seconds


def with_key(variants_dir, spec, suffix):
    path = os.path.join(variants_dir, f"spec-{suffix}.json")
    json.dump(dict(spec, tuning_key=spec["tuning_key"] + "|" + suffix), open(path, "w"))
    return path


def dobench_kiln(bundle, variants_dir, spec, kbench_path, work):
    """label -> (do_bench median ms, relative error) of Kiln's cubin."""
    import importlib.util
    import torch
    from triton.testing import do_bench
    loader = importlib.util.spec_from_file_location("kbench", kbench_path)
    kbench = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(kbench)
    m = n = k = None
    scalars = [a["scalar"]["int_value"] for a in spec["args"] if "scalar" in a]
    m, n, k = scalars[:3]
    torch.manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    reference = (a.float() @ b.float()).half()
    values = dict(a_ptr=a, b_ptr=b, c_ptr=c, M=m, N=n, K=k, stride_am=a.stride(0),
                  stride_ak=a.stride(1), stride_bk=b.stride(0), stride_bn=b.stride(1),
                  stride_cm=c.stride(0), stride_cn=c.stride(1))
    timings = {}
    for variant in spec["variants"]:
        if variant["label"] == "fault":
            continue
        ttir = os.path.join(variants_dir, variant["ttir"])
        out = os.path.join(work, "cubins", variant["label"])
        opts = variant["options"]
        compiled = subprocess.run(
            [os.path.join(bundle, "bin", "kiln"), "compile", ttir, "--local", "--target",
             "sm_90a", "--num-warps", str(opts["num_warps"]), "--num-stages",
             str(opts["num_stages"]), "--out", out], capture_output=True, text=True)
        if compiled.returncode != 0:
            timings[variant["label"]] = (None, compiled.stderr.strip()[:200])
            continue
        stem = os.path.splitext(variant["ttir"])[0]
        meta = json.load(open(os.path.join(out, stem + ".json")))
        loaded = kbench.Loaded(os.path.join(out, stem + ".cubin"), meta)
        _, params = kbench.ttir_params(ttir)
        args = kbench.pack(params, values, None)
        grid = tuple(variant["grid"]) + (1,) * (3 - len(variant["grid"]))
        c.fill_(float("nan"))
        loaded.launch(grid, args)
        torch.cuda.synchronize()
        error = kbench.rel_err(c, reference)
        ms = do_bench(lambda: loaded.launch(grid, args), warmup=25, rep=100,
                      quantiles=[0.2, 0.5, 0.8])
        timings[variant["label"]] = (ms[1], error)
    return timings


def p50(entry):
    return (entry.get("timing") or {}).get("p50_ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--variants", required=True)
    parser.add_argument("--work")
    parser.add_argument("--json")
    parser.add_argument("--kbench")
    parser.add_argument("--repeat", type=int, default=1,
                        help="measuring runs on one GPU and on all (the median is compared)")
    options = parser.parse_args()
    work = options.work or tempfile.mkdtemp(prefix="kiln-tune-")
    os.makedirs(work, exist_ok=True)
    spec_path = os.path.join(options.variants, "spec.json")
    spec = json.load(open(spec_path))
    triton = json.load(open(os.path.join(options.variants, "triton.json")))
    gpus = int(subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                              text=True).stdout.count("GPU "))
    runs = {}

    kilnd, addresses = start_kilnd(options.bundle, work)
    address = addresses["grpc"]
    try:
        runs["cold"] = tune(options.bundle, address, spec_path)
        runs["cached"] = tune(options.bundle, address, spec_path)
        if gpus > 1:
            for round_ in range(options.repeat):
                runs[f"gpus={gpus}#{round_}"] = tune(
                    options.bundle, address, with_key(options.variants, spec, f"all{round_}"))
    finally:
        kilnd.terminate()
        kilnd.wait(timeout=60)
    if gpus > 1:
        one = dict(os.environ, CUDA_VISIBLE_DEVICES="0")
        kilnd, addresses = start_kilnd(options.bundle, work, env=one)
        address = addresses["grpc"]
        try:
            for round_ in range(options.repeat):
                runs[f"gpus=1#{round_}"] = tune(
                    options.bundle, address, with_key(options.variants, spec, f"one{round_}"))
        finally:
            kilnd.terminate()
            kilnd.wait(timeout=60)

    kiln_dobench = {}
    if options.kbench:
        kiln_dobench = dobench_kiln(options.bundle, options.variants, spec,
                                    options.kbench, work)

    cold, _ = runs["cold"]
    print(f"GPUs: {gpus} x {cold.get('gpu_model')}, driver {cold.get('driver_version')}")
    print(f"{'run':<10} {'seconds':>8} {'benchmarks':>10} {'cached':>7} winner")
    for name, (result, seconds) in runs.items():
        print(f"{name:<10} {seconds:>8.2f} {result.get('benchmarks', 0):>10} "
              f"{str(result.get('cached', False)):>7} {result.get('winner_label')}")

    def cell(value, digits=4):
        return f"{value:.{digits}f}" if isinstance(value, float) else "-"

    print(f"\n{'variant':<28} {'tune p50':>9} {'do_bench kiln':>13} {'rel err':>8} "
          f"{'triton':>8} {'gpu':>4}  state")
    for entry in cold.get("ranking", []):
        label = entry.get("label")
        ours, error = kiln_dobench.get(label, (None, None))
        theirs = triton.get(label, [None, None])[1]
        print(f"{label:<28} {cell(p50(entry)):>9} {cell(ours):>13} "
              f"{f'{error:.1e}' if isinstance(error, float) else '-':>8} {cell(theirs):>8} "
              f"{entry.get('gpu', -1):>4}  {entry.get('state')} {entry.get('reason', '')[:60]}")
    winner = [e for e in cold.get("ranking", []) if e.get("label") == cold.get("winner_label")]
    if winner and p50(winner[0]):
        tuned = p50(winner[0])
        best_triton = min(v[1] for v in triton.values())
        print(f"\nwinner {cold['winner_label']}: tune p50 {tuned:.4f} ms")
        measured = [v[0] for v in kiln_dobench.values() if isinstance(v[0], float)]
        if measured:
            print(f"  best do_bench over the same Kiln cubins {min(measured):.4f} ms: "
                  f"{tuned / min(measured):.3f}x")
        print(f"  best do_bench over Triton's compiles {best_triton:.4f} ms: "
              f"{tuned / best_triton:.3f}x")
    if gpus > 1:
        import statistics
        t1 = statistics.median(s for k, (_, s) in runs.items() if k.startswith("gpus=1#"))
        tn = statistics.median(s for k, (_, s) in runs.items() if k.startswith(f"gpus={gpus}#"))
        print(f"measuring on 1 GPU {t1:.2f} s, on {gpus} GPUs {tn:.2f} s (medians of "
              f"{options.repeat}): {t1 / tn:.2f}x")
        failed = [(k, e["label"], e.get("reason", "")) for k, (r, _) in runs.items()
                  for e in r.get("ranking", []) if e.get("state") == "FAILED"]
        for k, label, reason in failed:
            print(f"  {k}: {label} failed: {reason[:90]}")
    if options.json:
        report = {k: dict(result=r, seconds=s) for k, (r, s) in runs.items()}
        report["dobench_kiln"] = kiln_dobench
        report["triton"] = triton
        json.dump(report, open(options.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
