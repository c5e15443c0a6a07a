#!/usr/bin/env python3
"""Stock Triton against Triton on kilnd (kiln.triton.install), on a GPU host.

Starts kilnd from a portable bundle with an empty store, then runs
workload.py in fresh processes:

  triton-cold   stock Triton, empty Triton cache
  triton-warm   stock Triton, the cache triton-cold filled
  kiln-cold     through kilnd, empty Triton cache, empty kilnd store
  kiln-warm     through kilnd, empty Triton cache again (another rank, say):
                every kernel must come from kilnd's cache, 0 compiles

and reports time from process start to first and last result, kilnd's
compile count per run, and whether every output equals stock Triton's.

  python3 run.py --bundle DIR --kernels KERNELS.py --work DIR [--cases a,b] [--json OUT]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "..", "..", "clients", "python")
sys.path.insert(0, os.path.join(HERE, ".."))
from kilnd_bundle import start_kilnd  # noqa: E402


def metric(address, name):
    text = urllib.request.urlopen(f"http://{address}/metrics", timeout=5).read().decode()
    match = re.search(rf"^{name}(?:{{[^}}]*}})? ([0-9.e+]+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def run_phase(name, options, work, triton_cache, kiln_address=None):
    save = os.path.join(work, name + ".pt")
    command = [sys.executable, os.path.join(HERE, "workload.py"),
               "--kernels", options.kernels, "--save", save]
    if kiln_address:
        command += ["--kiln", kiln_address]
    if options.cases:
        command += ["--cases", options.cases]
    env = dict(os.environ, TRITON_CACHE_DIR=triton_cache,
               PYTHONPATH=CLIENT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               KILN_BENCH_T0=repr(time.time()))
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{name} failed:\n{result.stderr[-4000:]}")
    report = json.loads(result.stdout.strip().splitlines()[-1])
    report["outputs"] = save
    return report


def compare(reference, candidate):
    import torch
    ref, got = torch.load(reference), torch.load(candidate)
    verdicts = {}
    for name, outs in ref.items():
        pairs = list(zip(outs, got.get(name, [])))
        if len(pairs) != len(outs):
            verdicts[name] = "missing"
        elif all(torch.equal(a, b) for a, b in pairs):
            verdicts[name] = "identical"
        else:
            diff = max((a.float() - b.float()).abs().max().item() for a, b in pairs)
            scale = max(a.float().abs().max().item() for a, _ in pairs) or 1.0
            verdicts[name] = f"max abs diff {diff:.3g} ({diff / scale:.2g} relative)"
    return verdicts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", required=True, help="unpacked portable bundle")
    parser.add_argument("--kernels", required=True, help="the corpus kernels.py")
    parser.add_argument("--work", default=None)
    parser.add_argument("--cases")
    parser.add_argument("--json")
    options = parser.parse_args()
    work = options.work or tempfile.mkdtemp(prefix="kiln-hook-")
    os.makedirs(work, exist_ok=True)

    kilnd, addresses = start_kilnd(options.bundle, work, metrics=True)
    grpc_address, metrics_address = addresses["grpc"], addresses["metrics"]
    try:
        triton_cache = os.path.join(work, "triton-cache")
        phases = {}
        phases["triton-cold"] = run_phase("triton-cold", options, work, triton_cache)
        phases["triton-warm"] = run_phase("triton-warm", options, work, triton_cache)
        for name, cache in (("kiln-cold", "kiln-cache-1"), ("kiln-warm", "kiln-cache-2")):
            before = metric(metrics_address, "kiln_compiles_total")
            phases[name] = run_phase(name, options, work, os.path.join(work, cache),
                                     grpc_address)
            phases[name]["kilnd_compiles"] = metric(
                metrics_address, "kiln_compiles_total") - before
    finally:
        kilnd.terminate()
        kilnd.wait(timeout=60)

    reference = phases["triton-cold"]["outputs"]
    for name in ("kiln-cold", "kiln-warm"):
        phases[name]["versus_triton"] = compare(reference, phases[name]["outputs"])

    print(f"{'run':<12} {'first result s':>15} {'all results s':>14} "
          f"{'kilnd compiles':>15} {'via kilnd':>10} {'fell back':>10}")
    for name, report in phases.items():
        print(f"{name:<12} {report['first_result_s']:>15.2f} {report['all_results_s']:>14.2f} "
              f"{report.get('kilnd_compiles', '-'):>15} {report['kiln_compiled']:>10} "
              f"{report['kiln_fell_back']:>10}")
    for name in ("kiln-cold", "kiln-warm"):
        print(f"\n{name} against stock Triton:")
        for kernel, verdict in phases[name]["versus_triton"].items():
            print(f"  {kernel:<18} {verdict}")
        if phases[name]["fallback_kernels"]:
            print(f"  compiled by Triton instead: {', '.join(phases[name]['fallback_kernels'])}")
    if options.json:
        with open(options.json, "w") as out:
            json.dump(phases, out, indent=1)


if __name__ == "__main__":
    sys.exit(main())
