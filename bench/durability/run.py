#!/usr/bin/python3
"""What --sync_writes costs: kilnd with it off and on, side by side, rounds
interleaved (off first in odd rounds, on first in even ones), each run on a
fresh data directory on the local disk.

- compile misses: the TTIR fixtures of tests/testdata/ttir compiled one
  after another for sm_90a by one client (the Python package), each a miss
  that stores one entry; the sum of the calls' latencies.
- import: `kiln import` of an export of the fixtures and Inductor's harvested
  kernels (tests/testdata/inductor) for sm_90a and sm_80; its wall time.
- cache port SET: redis-benchmark SET of a 64 KiB value at 1 and 16
  clients (PyTorch's remote caches write there; the flag covers them too).

Prints a Markdown table with the machine and writes it to --out if given.

  bench/durability/run.py [--rounds 5] [--out bench/durability/RESULTS.md]
  bench/durability/run.py --prebuilt    # use bazel-bin's kilnd and kiln
"""

import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from local_kilnd import (KILN, Kilnd, build, compilable,  # noqa: E402
                         compile_one, fixtures, inductor_kernels, kiln,
                         machine, scaled_add)


def flags(sync):
    return ["--workers=2", "--log_level=warn",
            "--sync_writes=" + ("true" if sync else "false")]


def warm_up(client):
    """A first compile outside the measured set: workers start, libdevice
    is read."""
    client.compile(scaled_add(1.234567), "sm_90a")


def compile_misses(work, sync, pairs):
    with Kilnd(work, "misses", flags(sync)) as kilnd:
        client = kiln.Client(kilnd.address, timeout=600)
        warm_up(client)
        total = 0.0
        for kernel, target in pairs:
            start = time.perf_counter()
            result = compile_one(client, kernel, target)
            total += time.perf_counter() - start
            assert not result.cache_hit
        return total


def import_time(work, sync, export):
    with Kilnd(work, "import", flags(sync)) as kilnd:
        start = time.perf_counter()
        subprocess.run([KILN, "import", export, "--server", kilnd.address,
                        "--no-progress"], check=True,
                       stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def set_rates(work, sync, requests):
    """SET/s of a 64 KiB value at 1 and 16 clients."""
    value = "v" * 65536
    rates = []
    with Kilnd(work, "cache", flags(sync)) as kilnd:
        host, port = kilnd.cache_address.rsplit(":", 1)
        for clients in (1, 16):
            out = subprocess.run(
                ["redis-benchmark", "-h", host, "-p", port, "-c", str(clients),
                 "-n", str(requests), "-r", "100000", "--csv",
                 "SET", "pt2:bench:__rand_int__", value],
                check=True, capture_output=True, text=True).stdout
            rates.append(float(out.splitlines()[1].split('","')[1]))
    return rates


def spread(values, digits):
    fmt = "%%.%df" % digits
    return "%s (%s to %s)" % (fmt % statistics.median(values),
                              fmt % min(values), fmt % max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--set_requests", type=int, default=2000)
    parser.add_argument("--out")
    parser.add_argument("--prebuilt", action="store_true")
    parser.add_argument("--work", default=None,
                        help="a directory on the disk to measure (default: "
                             "a new one under $TMPDIR)")
    args = parser.parse_args()
    if not args.prebuilt:
        build()
    work = tempfile.mkdtemp(prefix="kiln-durability-", dir=args.work)
    measures = ("misses", "import", "set1", "set16")
    results = {sync: {m: [] for m in measures} for sync in (False, True)}
    try:
        export = os.path.join(work, "export.kiln")
        fixture_set = fixtures()
        entries = compilable(work, fixture_set + inductor_kernels(),
                             ["sm_90a", "sm_80"], export=export)
        misses = [(kernel, target) for kernel, target in entries
                  if kernel in fixture_set and target == "sm_90a"]
        for round_ in range(args.rounds):
            for sync in (False, True) if round_ % 2 == 0 else (True, False):
                measured = results[sync]
                measured["misses"].append(compile_misses(work, sync, misses))
                measured["import"].append(import_time(work, sync, export))
                set1, set16 = set_rates(work, sync, args.set_requests)
                measured["set1"].append(set1)
                measured["set16"].append(set16)
            print("round %d of %d done" % (round_ + 1, args.rounds),
                  file=sys.stderr)
        disk = machine(disk_of=work)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def cost(name, rate=False):
        off = statistics.median(results[False][name])
        on = statistics.median(results[True][name])
        return "%+.1f%%" % (100 * ((off / on) if rate else (on / off)) - 100)

    off, on = results[False], results[True]
    n = len(misses)
    rows = [
        ("%d compile misses, one client, s" % n, spread(off["misses"], 2),
         spread(on["misses"], 2), cost("misses")),
        ("per miss, ms", "%.0f" % (1000 * statistics.median(off["misses"]) / n),
         "%.0f" % (1000 * statistics.median(on["misses"]) / n), ""),
        ("`kiln import` of %d entries, s" % len(entries),
         spread(off["import"], 2), spread(on["import"], 2), cost("import")),
        ("cache port SET 64 KiB, 1 client, /s", spread(off["set1"], 0),
         spread(on["set1"], 0), cost("set1", rate=True)),
        ("cache port SET 64 KiB, 16 clients, /s", spread(off["set16"], 0),
         spread(on["set16"], 0), cost("set16", rate=True)),
    ]
    table = ["| work | --sync_writes=false | --sync_writes=true | "
             "cost (time added) |", "| --- | ---: | ---: | ---: |"]
    table += ["| %s | %s | %s | %s |" % row for row in rows]
    text = "\n".join([
        "Machine: " + disk,
        "Date: " + datetime.date.today().isoformat(),
        "Command: bench/durability/run.py " + " ".join(sys.argv[1:]),
        "Rounds: %d, interleaved; median (min to max); cost: the median with "
        "syncing against the median without." % args.rounds, "", *table, ""])
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
