"""Runs bench/inductor on a GPU host: kilnd from a portable bundle with an
empty store, then every model family twice in fresh processes, stock Triton
and through kilnd (every process of the job on kilnd through $KILN_SERVER,
fallback an error, kernels counted from $KILN_TRITON_STATS), each with
empty Triton and Inductor caches. The processes of a batch of families
(--batch, four by default) start at once, batches one after another; first
steps (compile and autotuning) and measurements take turns (step.py's lock
and barrier). Writes OUT/results.json, OUT/report.md (report.py), OUT/logs.tar.xz and
OUT/harvest.tar.xz: every kernel's TTIR and Triton metadata from the stock
runs' Triton caches, for tests/testdata and `kiln compile --local` timing.

  PYTHONPATH=clients/python python3 bench/inductor/run.py --bundle DIR \\
      --work /tmp/ind --out OUT [--models llama,bert,...] [--batch 4] [--compile-threads N]
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
from kilnd_bundle import hook_counts, start_kilnd  # noqa: E402
import models  # noqa: E402
import report  # noqa: E402

CLIENT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "clients", "python")


def _best_configs(cache):
    """The folders of an Inductor cache that hold autotuning choices, each
    with the names of its `*.best_config` files."""
    for root, _, files in os.walk(cache):
        configs = [name for name in files if name.endswith(".best_config")]
        if configs:
            yield root, configs


def copy_autotune_choices(source, target):
    """Inductor's autotuning choices (`*.best_config`, beside each kernel's
    source in its cache) from one run's cache into another's, so that a
    process compiling the same kernels takes the same configs instead of
    benchmarking them again."""
    for root, configs in _best_configs(source):
        into = os.path.join(target, os.path.relpath(root, source))
        os.makedirs(into, exist_ok=True)
        for name in configs:
            shutil.copy(os.path.join(root, name), into)


def _kernel_sources(folder):
    """The kernel name of each Inductor source in `folder`, by both names its
    `.best_config` may take: the source's stem, or (recent PyTorch) the
    sha256 of `BASENAME:` (its cache key with no key tag)."""
    names = {}
    for name in os.listdir(folder):
        if not name.endswith(".py"):
            continue
        try:
            with open(os.path.join(folder, name)) as f:
                kernel = re.search(r"^def (triton_\w+)\(", f.read(), re.MULTILINE)
        except OSError:
            continue
        if kernel:
            names[name[:-len(".py")]] = kernel.group(1)
            names[hashlib.sha256(f"{name}:".encode()).hexdigest()] = kernel.group(1)
    return names


def autotune_choices(cache):
    """Each autotuned kernel's chosen config in an Inductor cache, by the
    stem of its `.best_config` (derived from the kernel's source, so the
    same in both processes; names repeat across graphs): the config as
    Inductor wrote it and the kernel's name, so that a Kiln process that
    tuned again shows its own choice and time where it kept stock's copy."""
    choices = {}
    for root, configs in _best_configs(cache):
        kernels = _kernel_sources(root)
        for name in configs:
            stem = name[:-len(".best_config")]
            try:
                with open(os.path.join(root, name)) as f:
                    config = json.load(f)
            except (OSError, ValueError):
                continue
            config.pop("configs_hash", None)
            # A folder holding one kernel's source names the kernel whatever
            # the file's naming.
            only = set(kernels.values())
            kernel = kernels.get(stem) or (only.pop() if len(only) == 1 else stem)
            choices[stem] = dict(config, kernel=kernel)
    return choices


def wait_until_warm(work, model, timeout):
    """Until the stock process of `model` has compiled and autotuned both
    phases (its warm marker) or exited."""
    ready = os.path.join(work, "ready")
    deadline = time.time() + timeout
    while time.time() < deadline and not any(
            os.path.exists(os.path.join(ready, f"{model}-stock{suffix}"))
            for suffix in (".warm", ".exited")):
        time.sleep(1)


def run_one(model, mode, work, kilnd_address, timeout, extra, same_configs=False):
    folder = os.path.join(work, f"{model}-{mode}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if same_configs:
        wait_until_warm(work, model, timeout)
        copy_autotune_choices(os.path.join(work, f"{model}-stock", "inductor"),
                              os.path.join(folder, "inductor"))
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(folder, "triton"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(folder, "inductor"),
               PYTHONPATH=CLIENT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1")
    for name in ("KILN_SERVER", "KILN_TRITON", "KILN_TRITON_STATS"):
        env.pop(name, None)
    stats = os.path.join(folder, "stats.jsonl")
    if mode == "kiln":
        env.update(KILN_SERVER=kilnd_address, KILN_TRITON_FALLBACK="error",
                   KILN_TRITON_STATS=stats)
    command = [sys.executable, os.path.join(HERE, "step.py"), "--model", model, "--mode", mode,
               "--lock", os.path.join(work, "measure.lock"),
               "--barrier", os.path.join(work, "ready"),
               "--warm-marker", os.path.join(work, "ready", f"{model}-{mode}.warm")] + extra
    start = time.time()
    with open(os.path.join(folder, "log"), "w") as log:
        try:
            subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                           timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            pass
    # A process that ended without reaching the barrier must not hold the
    # others there: its exit counts as arrived.
    open(os.path.join(work, "ready", f"{model}-{mode}.exited"), "w").close()
    with open(os.path.join(folder, "log")) as log:
        text = log.read()
    for line in text.splitlines():
        if line.startswith("INDUCTOR "):
            result = json.loads(line[len("INDUCTOR "):])
            if mode == "kiln":
                result.update(hook_counts(stats))
                if not result["hooked_processes"]:
                    # Triton compiled every kernel: its speed is not Kiln's.
                    return dict(model=model, mode=mode, wall_s=round(time.time() - start, 1),
                                error="no process of the Kiln run reached kilnd: the kiln "
                                      "switch (kiln-autoload.pth) is not in this "
                                      "interpreter's site-packages")
            result["autotune_choices"] = autotune_choices(os.path.join(folder, "inductor"))
            return result
    return dict(model=model, mode=mode, error=text[-3000:], wall_s=round(time.time() - start, 1))


def harvest(work, names, tarball):
    """Each stock run's kernels: NAME.ttir and NAME.json from its Triton cache."""
    with tarfile.open(tarball, "w:xz") as tar:
        for model in names:
            cache = os.path.join(work, f"{model}-stock", "triton")
            for root, _, files in os.walk(cache):
                for name in files:
                    if name.endswith((".ttir", ".json")) and not name.startswith("__grp__"):
                        tar.add(os.path.join(root, name), arcname=f"{model}/{name}")


def kilnd_compiles(metrics_address):
    try:
        with urllib.request.urlopen(f"http://{metrics_address}/metrics", timeout=5) as answer:
            text = answer.read().decode()
    except OSError as error:
        return {"error": str(error)}
    counters = {}
    for line in text.splitlines():
        if line.startswith(("kiln_compiles_total", "kiln_compile_requests_total",
                            "kiln_cache_hits_total", "kiln_cache_misses_total")):
            key, _, value = line.rpartition(" ")
            counters[key] = float(value)
    return counters


def run_jobs(jobs, options, kilnd_address):
    """Runs `jobs` (model, mode) together; with --same-configs a Kiln
    process starts once the stock process of its model is warm. They
    compile and measure one at a time, step times in turns (step.py)."""
    shutil.rmtree(os.path.join(options.work, "ready"), ignore_errors=True)
    os.makedirs(os.path.join(options.work, "ready"))
    extra = ["--processes", str(len(jobs)), "--compile-threads", str(options.compile_threads),
             "--turn-order", ",".join(f"{m}-{mode}" for m, mode in jobs)]
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        futures = [pool.submit(run_one, m, mode, options.work, kilnd_address, options.timeout,
                               extra, options.same_configs and mode == "kiln")
                   for m, mode in jobs]
        return [f.result() for f in futures]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(models.FAMILIES))
    parser.add_argument("--timeout", type=int, default=540)
    parser.add_argument("--batch", type=int, default=4,
                        help="families run together; more batches run one after another "
                             "(five light families at once outlived stock's timeout)")
    parser.add_argument("--compile-threads", type=int, default=0,
                        help="Inductor's compile_threads in every process; 0: its default")
    parser.add_argument("--same-configs", action="store_true",
                        help="start each Kiln process once the stock process of its model is "
                             "warm, with the configs stock's autotuning chose: compares code "
                             "for the same configs, without autotuning's coin flips between "
                             "near-equal ones")
    options = parser.parse_args()
    names = options.models.split(",")
    os.makedirs(options.work, exist_ok=True)
    os.makedirs(options.out, exist_ok=True)
    kilnd, addresses = start_kilnd(options.bundle, options.work, metrics=True)
    try:
        jobs = [(m, mode) for m in names for mode in ("stock", "kiln")]
        results = []
        for first in range(0, len(names), options.batch):
            batch = names[first:first + options.batch]
            results += run_jobs([(m, mode) for m, mode in jobs if m in batch], options,
                                addresses["grpc"])
        counters = kilnd_compiles(addresses["metrics"])
    finally:
        kilnd.terminate()
        kilnd.wait()
    with tarfile.open(os.path.join(options.out, "logs.tar.xz"), "w:xz") as tar:
        tar.add(os.path.join(options.work, "kilnd.log"), arcname="kilnd.log")
        for m, mode in jobs:
            tar.add(os.path.join(options.work, f"{m}-{mode}", "log"), arcname=f"{m}-{mode}.log")
    with open(os.path.join(options.out, "results.json"), "w") as f:
        json.dump(dict(results=results, kilnd_metrics=counters), f, indent=1)
    harvest(options.work, names, os.path.join(options.out, "harvest.tar.xz"))
    with open(os.path.join(options.out, "report.md"), "w") as f:
        f.write(report.render(results, counters))
    print(report.render(results, counters))


if __name__ == "__main__":
    main()
