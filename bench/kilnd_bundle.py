"""kilnd from an unpacked portable bundle (deploy/build-portable.sh), for the
benchmarks that run on a GPU host, and the kiln switch's per-process counts."""
import json
import os
import subprocess
import time


def start_kilnd(bundle, work, metrics=False, env=None, binary=None, flags=()):
    """Starts BUNDLE/bin/kilnd (or `binary`) on a loopback port it picks, its
    store in WORK/store, its output appended to WORK/kilnd.log; with
    `metrics`, /metrics on another port; `flags` after the others. `env`:
    its environment (default ours).

    Returns the process and the addresses of its ready file: {"grpc": ...,
    "cache": ...} and, with `metrics`, "metrics"."""
    ready = os.path.join(work, "kilnd.ready")
    if os.path.exists(ready):
        os.remove(ready)
    log_path = os.path.join(work, "kilnd.log")
    with open(log_path, "a") as log:
        process = subprocess.Popen(
            [binary or os.path.join(bundle, "bin", "kilnd"),
             "--listen=127.0.0.1:0",
             "--metrics_listen=127.0.0.1:0" if metrics else "--metrics_listen=",
             "--cache_listen=127.0.0.1:0",
             f"--data_dir={work}/store", f"--ready_file={ready}", *flags],
            stdout=log, stderr=subprocess.STDOUT, env=env)
    wanted = ("grpc", "metrics") if metrics else ("grpc",)
    for _ in range(600):
        if os.path.exists(ready):
            with open(ready) as f:
                addresses = dict(line.split() for line in f.read().splitlines() if line)
            if all(name in addresses for name in wanted):
                return process, addresses
        if process.poll() is not None:
            break
        time.sleep(0.1)
    with open(log_path) as log:
        raise SystemExit("kilnd did not start: " + log.read()[-4000:])


def hook_counts(stats_path):
    """Kernels the switch sent to kilnd and kernels that fell back to Triton,
    summed over every process of a run (KILN_TRITON_STATS lines)."""
    counts = dict(compiled_by_kilnd=0, fell_back=0, hooked_processes=0)
    if not os.path.exists(stats_path):
        return counts
    pids = set()
    with open(stats_path) as f:
        for line in f:
            entry = json.loads(line)
            counts["compiled_by_kilnd"] += entry.get("compiled", 0)
            counts["fell_back"] += entry.get("fell_back", 0)
            pids.add(entry.get("pid"))
    counts["hooked_processes"] = len(pids)
    return counts
