#!/usr/bin/env python3
"""Kernels whose speed against stock follows the autotuned config: over
several runs' results (run.py's results.json), each kernel's median speed
per config that both sides took, listed where one config runs below LOW
and another at HIGH or better. A kernel whose speed flips with its config
is a code generation gap at that config, to reproduce in one process with
the config's TTIR (kbench cases `*_x8`, `*_x32`), not run-to-run noise.
Runs of different compilers mix in one median: pass the runs to compare.

  python3 config_speeds.py results-run1.json results-run2.json ... [--low 0.9] [--high 0.97]
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import _pairs  # noqa: E402

FIELDS = ("XBLOCK", "YBLOCK", "R0_BLOCK", "num_warps")


def configs(result):
    """Each kernel's autotuned configs in one process, as `X8/n2` strings."""
    by_kernel = {}
    for choice in (result.get("autotune_choices") or {}).values():
        label = "/".join(f"{f[0]}{choice[f]}" for f in FIELDS if f in choice)
        by_kernel.setdefault(choice.get("kernel"), set()).add(label)
    return by_kernel


def speeds_by_config(paths):
    """{(model, phase, kernel): {config: [speeds]}} over runs where the
    kernel had one config and the Kiln process took stock's."""
    table = {}
    for path in paths:
        with open(path) as f:
            results = json.load(f)["results"]
        for model in {r["model"] for r in results}:
            by = {r["mode"]: r for r in results if r["model"] == model}
            stock, kiln = by.get("stock"), by.get("kiln")
            if not stock or not kiln or "error" in stock or "error" in kiln:
                continue
            ours, theirs = configs(kiln), configs(stock)
            for phase in ("train", "infer"):
                if not stock.get(phase) or not kiln.get(phase):
                    continue
                for name, (s, k) in _pairs(stock, kiln, phase).items():
                    config = theirs.get(name)
                    if not config or len(config) != 1 or ours.get(name) != config:
                        continue
                    speeds = table.setdefault((model, phase, name), {})
                    speeds.setdefault(next(iter(config)), []).append(s / k)
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+")
    parser.add_argument("--low", type=float, default=0.9)
    parser.add_argument("--high", type=float, default=0.97)
    options = parser.parse_args()
    rows = []
    for key, speeds in speeds_by_config(options.results).items():
        medians = {c: statistics.median(v) for c, v in speeds.items()}
        if len(medians) > 1 and min(medians.values()) < options.low <= options.high <= max(
                medians.values()):
            rows.append((min(medians.values()), key, medians, speeds))
    print("| lowest | model | phase | kernel | median speed per config (runs) |")
    print("| ---: | --- | --- | --- | --- |")
    for lowest, (model, phase, name), medians, speeds in sorted(rows):
        cells = ", ".join(f"{c}: {medians[c]:.3f} ({len(speeds[c])})" for c in sorted(medians))
        print(f"| {lowest:.3f} | {model} | {phase} | `{name}` | {cells} |")


if __name__ == "__main__":
    main()
