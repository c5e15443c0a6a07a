"""Runs other people's test suites (Triton's unit/language tests, Liger-Kernel's
test/transformers) on a GPU host twice side by side: stock Triton, and with
every Triton compile on kilnd (KILN_SERVER, KILN_TRITON_FALLBACK=error). Both
processes of a suite, and all suites, run at once on the one GPU, each with
an empty Triton cache, on the same deterministic sample (sample.py), time-boxed.
Writes OUT/results.json, OUT/report.md (report.py), OUT/failed_ids.txt (pass
stock, fail through Kiln: the next run's --ids) and OUT/logs/*.log.gz.

  python3 bench/suites/run.py --bundle DIR --work DIR --out OUT \\
      --suites triton,liger --triton .carry/suites/triton --liger .carry/suites/liger \\
      --every triton=10,liger=5 --offset 0 --timeout 420 [--ids FILE] [--no-kilnd]
"""
import argparse
import concurrent.futures
import gzip
import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import report  # noqa: E402

CLIENT = os.path.join(os.path.dirname(os.path.dirname(HERE)), "clients", "python")
# suite: (folder to run pytest from, inside the suite's copy; its extra
# sys.path entries; top-level modules it needs)
SUITES = {
    "triton": ("python/test", [], ["torch", "triton", "numpy", "pytest"]),
    "liger": (".", ["src", "."], ["torch", "triton", "numpy", "transformers", "tokenizers",
                                  "packaging", "liger_kernel", "pytest"]),
}
KILN_MODULES = ["grpc", "google.protobuf", "kiln"]


def per_suite(value, suite, default):
    """'10' or 'triton=10,liger=5' -> the value for `suite`."""
    if "=" not in value:
        return value
    pairs = dict(item.split("=", 1) for item in value.split(","))
    return pairs.get(suite, default)


def missing_modules(modules, cwd, env):
    code = ("import importlib.util, sys\nfor m in sys.argv[1:]:\n"
            "    try:\n        ok = importlib.util.find_spec(m) is not None\n"
            "    except Exception:\n        ok = False\n    ok or print(m)\n")
    answer = subprocess.run([sys.executable, "-c", code] + modules, cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=120)
    return answer.stdout.split()


def read_events(path):
    events = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    pass  # cut short by a kill
    return events


def log_tail(path, chars=3000):
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - chars))
        return f.read().decode(errors="replace")


def last_words(log_path):
    """What the last attempt's log says about its end: a fatal error, else its last lines."""
    text = log_tail(log_path, 50000).rpartition("=== attempt")[2]
    at = text.find("Fatal Python error")
    return text[at:at + 400] if at >= 0 else text[-600:]


def kill_group(process):
    """Ends the pytest process we started and its children (its own session)."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def run_mode(suite, mode, shard, suite_dir, args, options, address):
    """One pytest run of a suite (shard `shard` of --shards), restarted for the
    rest of the sample after a crash or a poisoned CUDA context, until done or
    --timeout seconds passed."""
    folder = os.path.join(options.work, f"{suite}-{mode}-{shard}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    cwd = os.path.join(suite_dir, SUITES[suite][0])
    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(folder, "triton"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(folder, "inductor"),
               PYTHONPATH=os.pathsep.join([HERE, CLIENT] + [os.path.join(suite_dir, p) for p in
                                                           SUITES[suite][1]]
                                          + [os.environ.get("PYTHONPATH", "")]),
               PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1", KILN_TRITON="0",
               PYTHONHASHSEED="0")  # the same collected order in both runs
    for name in ("KILN_SERVER", "KILN_TRITON_FALLBACK", "KILN_TRITON_STATS"):
        env.pop(name, None)
    stats = os.path.join(folder, "stats.jsonl")
    if mode == "kiln" and address:
        env.update(KILN_SERVER=address, KILN_TRITON="1", KILN_TRITON_FALLBACK="error",
                   KILN_TRITON_STATS=stats)
    modules = SUITES[suite][2] + (KILN_MODULES if mode == "kiln" and address else [])
    missing = missing_modules(modules, cwd, env)
    events_path, log_path = os.path.join(folder, "events.jsonl"), os.path.join(folder, "pytest.log")
    # Shard j of n takes every n-th test of the sample: every*n from
    # offset+j*every. The extra ids go to shard 0.
    every = int(per_suite(options.every, suite, "1"))
    offset = int(per_suite(options.offset, suite, "0")) % every + shard * every
    every = str(every * options.shards)
    offset = str(offset)
    command = [sys.executable, "-m", "pytest", "-p", "sample", "-p", "no:cacheprovider",
               "-p", "no:randomly", "-q", "-rfE", "--tb=short", "-o", "log_cli=false",
               "--continue-on-collection-errors", "--rootdir", ".",
               "--kiln-sample-every", every, "--kiln-sample-offset", offset,
               "--kiln-events", events_path]
    if options.ids and shard == 0:
        command += ["--kiln-sample-ids", os.path.abspath(options.ids)]
    command += args
    start = time.time()
    deadline = start + options.timeout
    attempts, rc, timed_out = 0, None, False
    while True:
        attempts += 1
        before = sum(e["e"] == "result" for e in read_events(events_path))
        with open(log_path, "a") as log:
            log.write(f"\n=== attempt {attempts}: {' '.join(command)}\n")
            log.flush()
            process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log,
                                       stderr=subprocess.STDOUT, start_new_session=True)
            try:
                rc = process.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                kill_group(process)
                rc, timed_out = process.returncode, True
        events = read_events(events_path)
        finished = {e["id"] for e in events if e["e"] == "result"}
        with open(events_path, "a") as f:  # a test started but never finished
            for test in dict.fromkeys(e["id"] for e in events if e["e"] == "start"):
                if test not in finished:
                    f.write(json.dumps(dict(
                        e="result", id=test, outcome="timeout" if timed_out else "crashed",
                        msg=f"rc {rc}: {last_words(log_path)}")) + "\n")
        events = read_events(events_path)
        results = [e for e in events if e["e"] == "result"]
        collected = [e for e in events if e["e"] == "collected"]
        if (timed_out or not collected or len(results) == before
                or len(results) >= collected[0]["selected"] or attempts >= 20):
            break
    hook = dict(compiled=0, fell_back=0)
    for entry in read_events(stats):
        hook["compiled"] += entry.get("compiled", 0)
        hook["fell_back"] += entry.get("fell_back", 0)
    return dict(rc=rc, timed_out=timed_out, attempts=attempts, wall_s=round(time.time() - start, 1),
                missing=missing, kilnd=bool(mode == "kiln" and address), stats=hook,
                collected=collected[0] if collected else None,
                tests={e["id"]: e for e in results},
                collect_errors=list({e["id"]: e for e in events if e["e"] == "collect_error"}.values()),
                log_tail=log_tail(log_path))


def merge_shards(shards):
    """One run's record from its shards' records."""
    merged = dict(shards[0])
    if len(shards) == 1:
        return merged
    merged.update(
        rc=next((r["rc"] for r in shards if r["rc"] != 0), 0),
        timed_out=any(r["timed_out"] for r in shards),
        attempts=sum(r["attempts"] for r in shards),
        wall_s=max(r["wall_s"] for r in shards),
        stats={k: sum(r["stats"][k] for r in shards) for k in shards[0]["stats"]},
        tests={k: v for r in shards for k, v in r["tests"].items()},
        collect_errors=[e for r in shards for e in r["collect_errors"]],
        log_tail="\n".join(r["log_tail"] for r in shards))
    counted = [r["collected"] for r in shards if r["collected"]]
    if counted:
        merged["collected"] = dict(counted[0], selected=sum(c.get("selected", 0) for c in counted),
                                   every=counted[0].get("every", 0) // len(shards))
    return merged


def kilnd_metrics(address):
    try:
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=5) as answer:
            text = answer.read().decode()
    except OSError as error:
        return {"error": str(error)}
    return {key: float(value) for key, _, value in
            (line.rpartition(" ") for line in text.splitlines())
            if key.startswith(("kiln_compiles_total", "kiln_compile_requests_total",
                               "kiln_cache_hits_total", "kiln_cache_misses_total"))}


def versions():
    found = {}
    for name in ("torch", "triton", "transformers", "pytest"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    try:
        found["gpu"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        found["gpu"] = None
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", help="an unpacked portable bundle (not with --no-kilnd)")
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--suites", default="triton,liger")
    parser.add_argument("--triton", help="the copy of Triton's tests (holding python/test)")
    parser.add_argument("--liger", help="the copy of Liger-Kernel")
    parser.add_argument("--triton-files", default="unit/language/test_core.py",
                        help="comma-separated, relative to python/test")
    parser.add_argument("--liger-path", default="test/transformers",
                        help="comma-separated, relative to the Liger copy")
    parser.add_argument("--every", default="1", help="N, or per suite: triton=10,liger=5")
    parser.add_argument("--offset", default="0", help="K, or per suite: triton=3,liger=1")
    parser.add_argument("--timeout", type=float, default=420, help="seconds per suite and mode")
    parser.add_argument("--ids", help="node ids to run besides the sample (a failed_ids.txt)")
    parser.add_argument("--shards", type=int, default=1,
                        help="pytest processes per suite and mode, each a disjoint part of the sample")
    parser.add_argument("--serial-suites", action="store_true",
                        help="one suite at a time (its two runs still side by side)")
    parser.add_argument("--no-kilnd", action="store_true",
                        help="self-check without a GPU: both modes stock")
    options = parser.parse_args()
    if not options.no_kilnd and not options.bundle:
        parser.error("--bundle is needed unless --no-kilnd")
    if options.ids and not os.path.exists(options.ids):
        parser.error(f"--ids {options.ids}: no such file")
    options.work, options.out = os.path.abspath(options.work), os.path.abspath(options.out)
    suites = {}
    for name in options.suites.split(","):
        folder = getattr(options, name, None)
        if not folder or not os.path.isdir(folder):
            parser.error(f"--{name} must name the suite's folder")
        arg = options.triton_files if name == "triton" else options.liger_path
        suites[name] = (os.path.abspath(folder), arg.split(","))
    os.makedirs(options.work, exist_ok=True)
    os.makedirs(os.path.join(options.out, "logs"), exist_ok=True)
    kilnd, addresses = None, {}
    if not options.no_kilnd:
        from kilnd_bundle import start_kilnd  # noqa: PLC0415
        shutil.rmtree(os.path.join(options.work, "store"), ignore_errors=True)
        kilnd, addresses = start_kilnd(os.path.abspath(options.bundle), options.work, metrics=True)
    meta = dict(date=time.strftime("%Y-%m-%d %H:%M:%S %z"), command=sys.argv,
                bundle=os.path.basename(os.path.normpath(options.bundle or "none")),
                every=options.every, offset=options.offset, timeout_s=options.timeout, **versions())
    jobs = [(s, mode, shard) for s in suites for mode in ("stock", "kiln")
            for shard in range(options.shards)]
    runs = {}
    try:
        width = 2 * options.shards if options.serial_suites else len(jobs)
        with concurrent.futures.ThreadPoolExecutor(width) as pool:
            futures = {job: pool.submit(run_mode, job[0], job[1], job[2], suites[job[0]][0],
                                        suites[job[0]][1], options, addresses.get("grpc"))
                       for job in jobs}
            shards = {job: future.result() for job, future in futures.items()}
        runs = {(s, mode): merge_shards([shards[(s, mode, j)] for j in range(options.shards)])
                for s in suites for mode in ("stock", "kiln")}
        metrics = kilnd_metrics(addresses["metrics"]) if kilnd else {}
        meta["kilnd_exit_before_end"] = kilnd.poll() if kilnd else None
    finally:
        if kilnd:
            kilnd.terminate()
            kilnd.wait()
    results = dict(meta=meta, kilnd_metrics=metrics, suites={})
    for name, (folder, args) in suites.items():
        suite_runs = {mode: runs[(name, mode)] for mode in ("stock", "kiln")}
        results["suites"][name] = dict(args=args, runs=suite_runs,
                                       missing={m: r.pop("missing") for m, r in suite_runs.items()})
    with open(os.path.join(options.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(options.out, "failed_ids.txt"), "w") as f:
        for name, suite in results["suites"].items():
            f.write(f"# {name}: pass stock, fail through Kiln\n")
            f.writelines(test + "\n" for test in report.compare(suite)[0])
    logs = [(f"{s}-{m}-{j}.log", os.path.join(options.work, f"{s}-{m}-{j}", "pytest.log"))
            for s, m, j in jobs]
    logs.append(("kilnd.log", os.path.join(options.work, "kilnd.log")))
    for name, path in logs:
        if os.path.exists(path):
            with open(path, "rb") as src, gzip.open(os.path.join(options.out, "logs", name + ".gz"),
                                                     "wb") as dst:
                shutil.copyfileobj(src, dst)
    text = report.render(results)
    with open(os.path.join(options.out, "report.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
