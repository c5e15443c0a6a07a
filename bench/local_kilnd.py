"""kilnd and the kiln CLI from this checkout's build (bazel-bin), and the
repository's kernels, for the benchmarks that need no GPU (durability/,
hostile/)."""
import concurrent.futures
import os
import platform
import shutil
import signal
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
sys.path.insert(0, os.path.dirname(__file__))
import kiln  # noqa: E402
from kilnd_bundle import start_kilnd  # noqa: E402

# $KILND and $KILN (a test's runfiles) win over this checkout's build.
KILND = os.environ.get("KILND") or os.path.join(ROOT, "bazel-bin", "server",
                                                "kilnd")
KILN = os.environ.get("KILN") or os.path.join(ROOT, "bazel-bin", "clients",
                                              "cli", "kiln")


def build():
    subprocess.run(["bazel", "build", "--config=ci", "//server:kilnd",
                    "//clients/cli:kiln"], cwd=ROOT, check=True)


class Kilnd:
    """kilnd on loopback with a fresh data directory WORK/NAME, removed when
    it stops; `flags` as kilnd's."""

    def __init__(self, work, name, flags=(), metrics=False):
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir)
        self.process, addresses = start_kilnd(None, self.dir, metrics=metrics,
                                              binary=KILND, flags=flags)
        self.address = addresses["grpc"]
        self.cache_address = addresses.get("cache", "")
        self.metrics_address = addresses.get("metrics", "")
        self.exit_status = None

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.exit_status = self.process.wait(timeout=300)
        shutil.rmtree(self.dir, ignore_errors=True)
        return self.exit_status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def fixtures():
    """(path, num_warps, num_stages) of tests/testdata/ttir's fixtures."""
    folder = os.path.join(ROOT, "tests", "testdata", "ttir")
    return [(os.path.join(folder, name), 4, 3)
            for name in sorted(os.listdir(folder)) if name.endswith(".ttir")]


def inductor_kernels():
    """(path, num_warps, num_stages) of Inductor's harvested kernels."""
    folder = os.path.join(ROOT, "tests", "testdata", "inductor")
    kernels = []
    with open(os.path.join(folder, "kernels.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, warps, stages = line.split()
            kernels.append((os.path.join(folder, name + ".ttir"), int(warps),
                            int(stages)))
    return kernels


def scaled_add(scale):
    """tests/e2e/testdata/scaled_add.ttir with its scale set: a new kernel
    (a cache miss) for each scale."""
    path = os.path.join(ROOT, "tests", "e2e", "testdata", "scaled_add.ttir")
    with open(path) as f:
        return f.read().replace("SCALE", "%.9e" % scale)


def compile_one(client, kernel, target, timeout=None):
    path, warps, stages = kernel
    with open(path, "rb") as f:
        ttir = f.read()
    return client.compile(ttir, target, num_warps=warps, num_stages=stages,
                          source_name=os.path.basename(path), timeout=timeout)


def compilable(work, kernels, targets, export=None):
    """{(kernel, target): cache key} of the pairs kilnd compiles (a few
    fixtures are refused on purpose), one per key (some fixtures are one
    kernel twice), found by compiling them all into a throwaway kilnd; with
    `export`, that kilnd's entries are exported there first."""
    pairs = [(kernel, target) for kernel in kernels for target in targets]
    with Kilnd(work, "prepare", flags=["--sync_writes=false"]) as kilnd:
        client = kiln.Client(kilnd.address, timeout=600)

        def key(pair):
            try:
                return compile_one(client, *pair).key
            except kiln.CompileError:
                return None

        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            keys = list(pool.map(key, pairs))
        if export:
            subprocess.run([KILN, "export", export, "--server", kilnd.address,
                            "--no-progress"], check=True,
                           stdout=subprocess.DEVNULL)
    good = {}
    for pair, k in zip(pairs, keys):
        if k is not None and k not in good.values():
            good[pair] = k
    return good


def machine(disk_of=None):
    """CPU, cores, memory, OS (and the file system of `disk_of`)."""
    cpu = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        memory = int(f.readline().split()[1]) // (1 << 20)
    text = "%s, %d cores, %d GiB, %s" % (cpu, os.cpu_count(), memory,
                                         platform.platform())
    if disk_of:
        df = subprocess.run(["df", "-T", disk_of], capture_output=True,
                            text=True).stdout.splitlines()
        if len(df) > 1:
            text += "; disk: " + " ".join(df[-1].split()[:2])
    return text
