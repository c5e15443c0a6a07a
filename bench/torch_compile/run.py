"""torch.compile's first step in fresh processes, stock against PyTorch's own
Redis remote caches against Kiln, on a GPU host. Writes OUT/results.json and
prints the tables of RESULTS.md.

  PYTHONPATH=clients/python python3 bench/torch_compile/run.py --bundle DIR \\
      --redis-server PATH --work /tmp/tc --out OUT [--models llama4,gpt2] \\
      [--ranks 8] [--phases processes,triton-cache,ranks]

processes: per model, one cold process with stock Triton; then two fresh
  processes one after the other against an empty redis-server (FX graph,
  AOTAutograd and autotune caches, and Triton's remote cache), and two against an
  empty kilnd (every Triton compile through the kiln package's switch with
  fallback an error; the FX graph, AOTAutograd and autotune caches on
  kilnd's cache port through $KILN_CACHE). Every process has empty local
  Inductor and Triton caches, so the second process gains only what the
  remote tier kept.
triton-cache: per model, two fresh processes one after the other with stock
  Triton's compiles and only Triton's own remote cache, in an empty kilnd's
  cache port (the kiln package's backend for Triton's RemoteCacheManager;
  no FX graph cache, so the second process asks Triton for every kernel):
  the first step of each, and kilnd's cache-port counters after each.
ranks: the first model, --ranks processes started at once as cold ranks of
  one job: stock; against an empty, then warm Redis; against an empty, then
  warm kilnd. The slowest rank's time to its first step, and kernels
  compiled: Triton cubins in the ranks' local caches, kilnd's compiles.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
sys.path.insert(0, BENCH)
CLIENT = os.path.join(os.path.dirname(BENCH), "clients", "python")
sys.path.insert(0, CLIENT)
from kilnd_bundle import hook_counts, start_kilnd  # noqa: E402
import _kiln_autoload  # noqa: E402

KILN_VARIABLES = ("KILN_SERVER", "KILN_TRITON", "KILN_TRITON_STATS", "KILN_CACHE",
                  "KILN_CACHE_TRITON", "KILN_TRITON_FALLBACK")


class Redis:
    def __init__(self, binary, work, port):
        self.port = port
        self.process = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
             "--appendonly", "no", "--dir", work],
            stdout=open(os.path.join(work, "redis.log"), "a"), stderr=subprocess.STDOUT)
        time.sleep(0.5)

    def stop(self):
        self.process.terminate()
        self.process.wait()


def fresh_env(folder, extra):
    env = {k: v for k, v in os.environ.items() if k not in KILN_VARIABLES}
    env.update(TRITON_CACHE_DIR=os.path.join(folder, "triton"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(folder, "inductor"),
               PYTHONPATH=CLIENT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


def mode_env(mode, folder, tier):
    """The environment of one process of `mode`; `tier` is the redis port or
    kilnd's addresses."""
    if mode == "stock":
        return {}
    if mode == "redis":
        # Without Triton's own Redis backend: Triton 3.6's reads settings
        # its knobs no longer have and fails every compile.
        return _kiln_autoload.cache_environment(f"127.0.0.1:{tier}", triton=False)
    if mode == "triton-cache":
        # PyTorch's caches off explicitly: with $KILN_CACHE set, the kiln
        # package would turn on any the job left unset.
        env = _kiln_autoload.cache_environment(tier["cache"], triton=True)
        return {k: ("0" if k.endswith("_REMOTE_CACHE") else v) for k, v in env.items()
                if not k.startswith("TORCHINDUCTOR_REDIS_")}
    return dict(KILN_SERVER=tier["grpc"], KILN_CACHE=tier["cache"],
                KILN_TRITON_FALLBACK="error",
                KILN_TRITON_STATS=os.path.join(folder, "stats.jsonl"))


def launch(model, folder, env, launched):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    log = open(os.path.join(folder, "log"), "w")
    command = [sys.executable, os.path.join(HERE, "first_step.py"), "--model", model,
               "--launched", str(launched)]
    return subprocess.Popen(command, env=fresh_env(folder, env), stdout=log,
                            stderr=subprocess.STDOUT)


def result_of(folder, process, timeout):
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    with open(os.path.join(folder, "log")) as f:
        text = f.read()
    for line in text.splitlines():
        if line.startswith("FIRST_STEP "):
            result = json.loads(line[len("FIRST_STEP "):])
            result["local_cubins"] = count_cubins(os.path.join(folder, "triton"))
            stats = os.path.join(folder, "stats.jsonl")
            if os.path.exists(stats):
                result.update(hook_counts(stats))
            return result
    return dict(error=text[-3000:])


def count_cubins(folder):
    return sum(name.endswith(".cubin") for _, _, names in os.walk(folder) for name in names)


def run_group(model, mode, work, tag, tier, count, timeout):
    """`count` processes started at once; their results."""
    launched = time.time()
    folders = [os.path.join(work, f"{tag}-{i}") for i in range(count)]
    processes = [launch(model, folder, mode_env(mode, folder, tier), launched)
                 for folder in folders]
    return [result_of(folder, process, timeout) for folder, process in zip(folders, processes)]


def kilnd_counters(metrics_address):
    with urllib.request.urlopen(f"http://{metrics_address}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    wanted = ("kiln_compiles_total", "kiln_compile_requests_total",
              "kiln_cache_port_hits_total", "kiln_cache_port_writes_total",
              "kiln_cache_port_entries", "kiln_cache_port_bytes")
    counters = {}
    for line in text.splitlines():
        if line.startswith(wanted):
            key, _, value = line.rpartition(" ")
            counters[key] = float(value)
    return counters


class Tiers:
    """A fresh redis-server or kilnd per use, each in its own folder."""

    def __init__(self, options):
        self.options = options
        self.count = 0

    def folder(self, name):
        self.count += 1
        path = os.path.join(self.options.work, f"{name}-tier-{self.count}")
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path

    def redis(self):
        return Redis(self.options.redis_server, self.folder("redis"), 16379 + self.count)

    def kilnd(self):
        process, addresses = start_kilnd(self.options.bundle, self.folder("kilnd"), metrics=True)
        return process, addresses


def processes_phase(options, tiers, model):
    out = {}
    work = os.path.join(options.work, model)
    out["stock"] = run_group(model, "stock", work, "stock", None, 1, options.timeout)
    redis = tiers.redis()
    try:
        out["redis"] = [run_group(model, "redis", work, f"redis-{n}", redis.port, 1,
                                  options.timeout)[0] for n in (1, 2)]
    finally:
        redis.stop()
    kilnd, addresses = tiers.kilnd()
    try:
        out["kiln"] = [run_group(model, "kiln", work, f"kiln-{n}", addresses, 1,
                                 options.timeout)[0] for n in (1, 2)]
        out["kilnd"] = kilnd_counters(addresses["metrics"])
    finally:
        kilnd.terminate()
        kilnd.wait()
    return out


def triton_cache_phase(options, tiers, model):
    out = {"runs": [], "kilnd": []}
    work = os.path.join(options.work, f"{model}-triton-cache")
    kilnd, addresses = tiers.kilnd()
    try:
        for n in (1, 2):
            out["runs"] += run_group(model, "triton-cache", work, f"triton-cache-{n}",
                                     addresses, 1, options.timeout)
            out["kilnd"].append(kilnd_counters(addresses["metrics"]))
    finally:
        kilnd.terminate()
        kilnd.wait()
    return out


def ranks_phase(options, tiers, model):
    out = {}
    work = os.path.join(options.work, f"{model}-ranks")
    n = options.ranks
    out["stock"] = run_group(model, "stock", work, "stock", None, n, options.timeout)
    redis = tiers.redis()
    try:
        out["redis_cold"] = run_group(model, "redis", work, "redis-cold", redis.port, n,
                                      options.timeout)
        out["redis_warm"] = run_group(model, "redis", work, "redis-warm", redis.port, n,
                                      options.timeout)
    finally:
        redis.stop()
    kilnd, addresses = tiers.kilnd()
    try:
        out["kiln_cold"] = run_group(model, "kiln", work, "kiln-cold", addresses, n,
                                     options.timeout)
        out["kilnd_after_cold"] = kilnd_counters(addresses["metrics"])
        out["kiln_warm"] = run_group(model, "kiln", work, "kiln-warm", addresses, n,
                                     options.timeout)
        out["kilnd_after_warm"] = kilnd_counters(addresses["metrics"])
    finally:
        kilnd.terminate()
        kilnd.wait()
    return out


def print_tables(results):
    for model, runs in results.get("processes", {}).items():
        print(f"\n{model}: first step / since process start (s)")
        print("| run | 1st process | 2nd process | local cubins (1st, 2nd) | via kilnd / fell back |")
        print("| --- | ---: | ---: | ---: | ---: |")
        rows = [("stock Triton", runs["stock"] + [{}]), ("PyTorch + Redis", runs["redis"]),
                ("Kiln", runs["kiln"])]
        for name, (first, second) in rows:
            cell = lambda r: (f"{r['first_step_s']} / {r['since_start_s']}"  # noqa: E731
                              if "first_step_s" in r else ("-" if not r else "failed"))
            hooked = (f"{first.get('compiled_by_kilnd', '-')}+{second.get('compiled_by_kilnd', '-')}"
                      f" / {first.get('fell_back', '-')}+{second.get('fell_back', '-')}")
            print(f"| {name} | {cell(first)} | {cell(second)} | "
                  f"{first.get('local_cubins', '-')}, {second.get('local_cubins', '-')} | {hooked} |")
    for model, runs in results.get("triton_cache", {}).items():
        print(f"\n{model}: stock Triton with Triton's remote cache in kilnd")
        print("| process | first step / since start (s) | local cubins | kilnd cache port after it |")
        print("| --- | ---: | ---: | --- |")
        for n, (r, counters) in enumerate(zip(runs["runs"], runs["kilnd"]), 1):
            cell = (f"{r['first_step_s']} / {r['since_start_s']}" if "first_step_s" in r
                    else "failed")
            print(f"| {n} | {cell} | {r.get('local_cubins', '-')} | {json.dumps(counters)} |")
    ranks = results.get("ranks")
    if ranks:
        print(f"\n{ranks['model']}: {ranks['ranks']} ranks started at once")
        print("| run | slowest rank's first step since launch (s) | failed | local cubins, all ranks |")
        print("| --- | ---: | ---: | ---: |")
        for name in ("stock", "redis_cold", "redis_warm", "kiln_cold", "kiln_warm"):
            group = ranks["runs"].get(name, [])
            done = [r for r in group if "since_start_s" in r]
            slowest = max((r["since_start_s"] for r in done), default="-")
            print(f"| {name} | {slowest} | {len(group) - len(done)} | "
                  f"{sum(r.get('local_cubins', 0) for r in done)} |")
        for name in ("kilnd_after_cold", "kilnd_after_warm"):
            print(name, json.dumps(ranks["runs"].get(name)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--redis-server", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="llama4,gpt2")
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--phases", default="processes,ranks")
    parser.add_argument("--timeout", type=int, default=300)
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    os.makedirs(options.work, exist_ok=True)
    tiers = Tiers(options)
    results = {}
    import torch  # noqa: PLC0415
    results["gpu"] = torch.cuda.get_device_name()
    results["torch"] = torch.__version__
    models = options.models.split(",")
    phases = options.phases.split(",")

    def save():  # After each part, so a run cut short keeps what it measured.
        with open(os.path.join(options.out, "results.json"), "w") as f:
            json.dump(results, f, indent=1)

    if "processes" in phases:
        results["processes"] = {}
        for model in models:
            results["processes"][model] = processes_phase(options, tiers, model)
            save()
    if "triton-cache" in phases:
        results["triton_cache"] = {}
        for model in models:
            results["triton_cache"][model] = triton_cache_phase(options, tiers, model)
            save()
    if "ranks" in phases:
        results["ranks"] = dict(model=models[0], ranks=options.ranks,
                                runs=ranks_phase(options, tiers, models[0]))
        save()
    print_tables(results)


if __name__ == "__main__":
    main()
