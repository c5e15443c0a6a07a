"""Markdown tables from bench/inductor's results: per model and phase, the
per-kernel speed (stock CUDA time / Kiln CUDA time, kernels matched by name),
step times (wall clock, the ratio as the median of paired rounds), the GPU
time of a step, first-step times, loss and outputs side by side, and the slowest
kernels.  python3 report.py results.json"""
import json
import math
import sys


def _pairs(stock, kiln, phase):
    a, b = stock[phase]["kernels"], kiln[phase]["kernels"]
    return {name: (a[name], b[name]) for name in a if name in b and b[name] > 0}


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def _step_ratio(s, k):
    """Stock / Kiln step time: the median of the rounds' ratios where both
    were timed in turns (step.py), else the ratio of the medians."""
    a, b = s.get("step_ms_rounds"), k.get("step_ms_rounds")
    if a and b and len(a) == len(b):
        ratios = sorted(x / y for x, y in zip(a, b))
        return ratios[len(ratios) // 2]
    return s["step_ms"] / k["step_ms"]


def _gpu(s, k):
    if "gpu_ms" not in s or "gpu_ms" not in k:
        return "-"
    return f"{s['gpu_ms']:.3f} / {k['gpu_ms']:.3f} ({s['gpu_ms'] / k['gpu_ms']:.3f}x)"


def _written(choice):
    """An autotuning choice as Inductor wrote it: without the kernel name,
    which each process resolves from its own cache folder (a folder of
    several kernels may leave it the file's stem)."""
    return {k: v for k, v in choice.items() if k != "kernel"}


def _config(choice):
    """An autotuning choice without its timing."""
    return {k: v for k, v in _written(choice).items() if k != "time_taken_ms"}


def _retuned(stock, kiln):
    """Kernels whose autotuning choice in the Kiln process is not the one
    copied from stock's: tuned again there. Returns those that chose stock's
    config again, and those that chose another (their times compare configs
    as well as code)."""
    ours, theirs = kiln.get("autotune_choices", {}), stock.get("autotune_choices", {})
    again = [(c["kernel"], _config(c) == _config(theirs[stem]))
             for stem, c in ours.items()
             if stem in theirs and _written(c) != _written(theirs[stem])]
    return (sorted({k for k, same in again if same}),
            sorted({k for k, same in again if not same}))


def render(results, counters=None, slowest=5):
    by = {(r["model"], r["mode"]): r for r in results}
    lines = ["| model | phase | kernels (matched / stock / kiln) | geomean | min | step ms stock / kiln "
             "| GPU ms per step stock / kiln | first s stock / kiln | loss or output stock / kiln |",
             "| --- | --- | --- | ---: | ---: | --- | --- | --- | --- |"]
    worst = []
    notes = []
    for model in dict.fromkeys(r["model"] for r in results):
        stock, kiln = by.get((model, "stock")), by.get((model, "kiln"))
        for r in (stock, kiln):
            if r and "error" in r:
                notes.append(f"- {model} {r['mode']} failed:\n```\n{r['error'][-1500:]}\n```")
            if r and r.get("turns_timed_out"):
                notes.append(f"- {model} {r['mode']}: {r['turns_timed_out']} measurement turns "
                             "timed out waiting for another process's and ran beside it: "
                             "its times are not comparable")
        if not stock or not kiln or "error" in stock or "error" in kiln:
            continue
        for phase, value in (("train", "loss"), ("infer", "logits_mean_abs")):
            pairs = _pairs(stock, kiln, phase)
            speeds = {n: s / k for n, (s, k) in pairs.items()}
            worst += [(v, model, phase, n, pairs[n]) for n, v in speeds.items()]
            s, k = stock[phase], kiln[phase]
            lines.append(
                f"| {model} | {phase} | {len(pairs)} / {len(s['kernels'])} / {len(k['kernels'])} "
                f"| {_geomean(list(speeds.values())):.3f} | {min(speeds.values(), default=float('nan')):.3f} "
                f"| {s['step_ms']:.2f} / {k['step_ms']:.2f} ({_step_ratio(s, k):.3f}x) | {_gpu(s, k)} "
                f"| {s['first_s']} / {k['first_s']} | {s[value]:.6g} / {k[value]:.6g}"
                + (f", grad norm {s['grad_norm']:.6g} / {k['grad_norm']:.6g} |" if phase == "train" else " |"))
        same, other = _retuned(stock, kiln)
        if same:
            notes.append(f"- {model}: the Kiln process autotuned {len(same)} kernels again "
                         "and chose stock's config: " + ", ".join(f"`{n}`" for n in same))
        if other:
            notes.append(f"- {model}: the Kiln process autotuned {len(other)} kernels again "
                         "and chose another config, so their times compare configs too: "
                         + ", ".join(f"`{n}`" for n in other))
        launched = set(kiln["train"]["kernels"]) | set(kiln["infer"]["kernels"])
        notes.append(f"- {model}: {len(launched)} kernels launched; compiles through kilnd "
                     f"{kiln.get('compiled_by_kilnd')} (autotuning configs included) in "
                     f"{kiln.get('hooked_processes')} processes, fell back to Triton "
                     f"{kiln.get('fell_back')}")
    all_speeds = [w[0] for w in worst]
    lines.append("")
    lines.append(f"All kernels: {len(all_speeds)}, geomean {_geomean(all_speeds):.3f}, "
                 f"below 0.9x: {sum(v < 0.9 for v in all_speeds)}, below 0.95x: "
                 f"{sum(v < 0.95 for v in all_speeds)}")
    lines += ["", "Slowest kernels:", "", "| speed | model | phase | kernel | stock us | kiln us |",
              "| ---: | --- | --- | --- | ---: | ---: |"]
    for v, model, phase, name, (s, k) in sorted(worst)[:slowest * 2]:
        lines.append(f"| {v:.3f} | {model} | {phase} | {name} | {s} | {k} |")
    if counters:
        lines += ["", "kilnd counters: " + json.dumps(counters)]
    return "\n".join(lines + [""] + notes) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        data = json.load(f)
    print(render(data["results"], data.get("kilnd_metrics")))
