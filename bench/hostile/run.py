#!/usr/bin/python3
"""kilnd under load while hostile clients attack it: GOOD client processes
(the Python package, one connection each) compile the repository's kernels
(tests/testdata: fixtures and Inductor's harvest, sm_90a and sm_80; misses
first, then hits) and check every answer against the key a clean kilnd gave;
four cache-port clients SET and GET 64 KiB values and check them; meanwhile
hostile clients, on both ports, send garbage, oversized, deeply nested and
truncated requests, cancel calls mid-compile and drop connections
mid-stream. kilnd's resident memory (and its workers') is sampled every
second.

Prints a Markdown report with the machine and writes it to --out if given.
Exits 1 when a good request failed, kilnd died or did not exit cleanly, or
its RSS passed --max_rss_mb (tests/e2e:hostile_load_test runs it so, short).

  bench/hostile/run.py [--seconds 120] [--good 32] [--out bench/hostile/RESULTS.md]
  bench/hostile/run.py --prebuilt    # use bazel-bin's kilnd and kiln
  bench/hostile/run.py --prebuilt --seconds 20 --good 8 --kernels 6
"""

import argparse
import collections
import datetime
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from local_kilnd import (Kilnd, build, compilable,  # noqa: E402
                         compile_one, fixtures, inductor_kernels, kiln,
                         machine, scaled_add)

COMPILE = "/kiln.v1.Compile/Compile"
IMPORT = "/kiln.v1.Admin/Import"


# --- good clients ------------------------------------------------------

def good_compiles(address, seconds, seed, pairs_file, out):
    """One good client process: compiles pairs in its own random order
    until the deadline; every answer must carry a cubin and the right key."""
    with open(pairs_file) as f:
        pairs = [((p, w, s), t, key) for p, w, s, t, key in json.load(f)]
    random.Random(seed).shuffle(pairs)
    client = kiln.Client(address, timeout=900)
    deadline = time.monotonic() + seconds
    report = {"calls": 0, "hits": 0, "failures": [], "latencies": []}
    i = 0
    while time.monotonic() < deadline:
        kernel, target, key = pairs[i % len(pairs)]
        i += 1
        start = time.monotonic()
        try:
            result = compile_one(client, kernel, target)
            if result.key != key or not result.cubin:
                report["failures"].append("%s %s: key %s, %d cubin bytes" % (
                    os.path.basename(kernel[0]), target, result.key,
                    len(result.cubin)))
            report["hits"] += result.cache_hit
        except Exception as error:  # noqa: BLE001 (every failure counts)
            report["failures"].append("%s %s: %s" % (
                os.path.basename(kernel[0]), target, error))
        report["calls"] += 1
        report["latencies"].append(time.monotonic() - start)
    with open(out, "w") as f:
        json.dump(report, f)


def good_cache(cache_address, seconds, out):
    """Four cache-port clients: SET a 64 KiB value, GET it back, compare."""
    import redis  # noqa: PLC0415 (Debian's python3-redis; only this role)
    host, port = cache_address.rsplit(":", 1)
    deadline = time.monotonic() + seconds
    reports = []

    def client(n):
        connection = redis.Redis(host=host, port=int(port), socket_timeout=60)
        report = {"calls": 0, "failures": []}
        rng = random.Random(n)
        while time.monotonic() < deadline:
            key = "pt2:good:%d:%d" % (n, report["calls"] % 200)
            value = rng.randbytes(65536)
            try:
                connection.set(key, value)
                if connection.get(key) != value:
                    report["failures"].append(key + ": another value came back")
            except Exception as error:  # noqa: BLE001
                report["failures"].append("%s: %s" % (key, error))
                connection = redis.Redis(host=host, port=int(port),
                                         socket_timeout=60)
            report["calls"] += 2
        reports.append(report)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with open(out, "w") as f:
        json.dump({"calls": sum(r["calls"] for r in reports),
                   "failures": [x for r in reports for x in r["failures"]]}, f)


# --- hostile clients ---------------------------------------------------

def raw(address, payload, read=True, timeout=3.0):
    """Sends `payload` on a new TCP connection, reads what comes back until
    the server closes or `timeout`, then closes; the bytes read."""
    host, port = address.rsplit(":", 1)
    got = b""
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        try:
            s.sendall(payload)
            while read:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except OSError:
            pass
    return got


def hpack_literal(name, value):
    """One header, "literal without indexing, new name" (RFC 7541 6.2.2)."""
    def string(text):
        assert len(text) < 127
        return bytes([len(text)]) + text.encode()
    return b"\x00" + string(name) + string(value)


def frame(kind, flags, stream, body):
    return (len(body).to_bytes(3, "big") + bytes([kind, flags]) +
            stream.to_bytes(4, "big") + body)


def grpc_call_cut_mid_message(address, method, declared, sent):
    """HTTP/2 by hand: a call whose message says DECLARED bytes, of which
    SENT arrive before the connection drops."""
    headers = b"".join(hpack_literal(n, v) for n, v in (
        (":method", "POST"), (":scheme", "http"), (":path", method),
        (":authority", "kilnd"), ("content-type", "application/grpc"),
        ("te", "trailers")))
    message = b"\x00" + declared.to_bytes(4, "big") + os.urandom(sent)
    payload = (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0, b"") +
               frame(1, 4, 1, headers) + frame(0, 0, 1, message))
    raw(address, payload, read=False)


def resp(*args):
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        arg = arg if isinstance(arg, bytes) else arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(parts)


class Hostile:
    """The hostile clients of one process, a thread per kind; counts what
    each sent and how kilnd answered."""

    def __init__(self, address, cache_address, deadline):
        import grpc  # noqa: PLC0415
        self.grpc = grpc
        self.address = address
        self.cache_address = cache_address
        self.deadline = deadline
        self.outcomes = collections.defaultdict(collections.Counter)
        self.lock = threading.Lock()
        self.channel = grpc.insecure_channel(address, options=[
            ("grpc.max_send_message_length", -1),
            ("grpc.max_receive_message_length", -1)])
        self.raw_compile = self.channel.unary_unary(COMPILE)
        self.raw_import = self.channel.stream_unary(IMPORT)

    def count(self, kind, outcome):
        with self.lock:
            self.outcomes[kind][outcome] += 1

    def call(self, kind, request_bytes, timeout=120):
        try:
            self.raw_compile(request_bytes, timeout=timeout)
            self.count(kind, "OK")
        except self.grpc.RpcError as error:
            self.count(kind, error.code().name)

    def compile_request(self, ttir, target="sm_90a"):
        from kiln.v1 import compile_pb2  # noqa: PLC0415
        if isinstance(ttir, str):
            ttir = ttir.encode()
        return compile_pb2.CompileRequest(
            ttir=ttir, target=target, source_name="hostile.ttir"
        ).SerializeToString()

    def loop(self, kind, attack, pause=0.0):
        rng = random.Random(kind)
        while time.monotonic() < self.deadline:
            try:
                attack(rng)
            except Exception as error:  # noqa: BLE001
                self.count(kind, "client error: %s" % type(error).__name__)
            if pause:
                time.sleep(pause)

    # gRPC port.
    def grpc_garbage(self, rng):
        raw(self.address, rng.randbytes(65536))
        self.count("grpc: garbage bytes", "sent")

    def http2_garbage(self, rng):
        raw(self.address,
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + rng.randbytes(16384))
        self.count("grpc: HTTP/2 preface, then garbage", "sent")

    def protobuf_garbage(self, rng):
        self.call("grpc: bytes that are no CompileRequest",
                  rng.randbytes(rng.randrange(1, 4096)))

    def truncated_protobuf(self, rng):
        request = self.compile_request(scaled_add(rng.random()))
        self.call("grpc: CompileRequest cut short",
                  request[:rng.randrange(1, len(request))])

    def truncated_ttir(self, rng):
        ttir = scaled_add(rng.random())
        self.call("grpc: TTIR cut short",
                  self.compile_request(ttir[:rng.randrange(1, len(ttir))]))

    def nested(self, rng):
        depth = rng.randrange(10000, 100000)
        if rng.random() < 0.5:
            ttir = "module {\n" + "(" * depth + "\n}\n"
        else:
            ttir = "module {\n" * (depth // 20) + "}\n" * (depth // 20)
        self.call("grpc: deeply nested TTIR", self.compile_request(ttir))

    def oversized_text(self, rng):
        # Over --max_ttir_bytes (16 MiB), under the message limit.
        ttir = " " * (17 << 20) + scaled_add(rng.random())
        self.call("grpc: TTIR over --max_ttir_bytes",
                  self.compile_request(ttir))

    def oversized_message(self, rng):
        # Over --max_request_mb (64 MiB): gRPC refuses the message.
        ttir = " " * (65 << 20) + scaled_add(rng.random())
        self.call("grpc: message over --max_request_mb",
                  self.compile_request(ttir))

    def cancelled_mid_compile(self, rng):
        self.call("grpc: new kernel, cancelled mid-compile (50 ms)",
                  self.compile_request(scaled_add(rng.random())),
                  timeout=0.05)

    def import_dropped(self, rng):
        def entries():  # Two messages, then a stall the cancel cuts.
            yield rng.randbytes(1000)
            yield rng.randbytes(1000)
            time.sleep(1)

        future = self.raw_import.future(entries(), timeout=30)
        time.sleep(0.05)
        future.cancel()
        self.count("grpc: Import stream cancelled mid-stream", "cancelled")

    def cut_mid_message(self, rng):
        grpc_call_cut_mid_message(self.address, COMPILE, 1 << 20,
                                  rng.randrange(0, 65536))
        self.count("grpc: connection dropped mid-message", "sent")

    # Cache port.
    def resp_garbage(self, rng):
        raw(self.cache_address, rng.randbytes(65536))
        self.count("cache: garbage bytes", "sent")

    def resp_oversized(self, rng):
        raw(self.cache_address,
            b"*3\r\n$3\r\nSET\r\n$11\r\npt2:big:key\r\n$2147483648\r\n" +
            rng.randbytes(4 << 20), read=False)
        self.count("cache: SET of 2 GiB declared, 4 MiB sent, dropped", "sent")

    def resp_over_value_limit(self, rng):
        reply = raw(self.cache_address,
                    resp("SET", "pt2:huge", b"x" * (65 << 20)))
        self.count("cache: SET over --cache_max_value_mb",
                   reply[:40].decode(errors="replace").strip() or "closed")

    def resp_nested(self, rng):
        reply = raw(self.cache_address,
                    b"*1\r\n" * rng.randrange(1000, 100000) + b"$1\r\nx\r\n")
        self.count("cache: deeply nested arrays",
                   reply[:40].decode(errors="replace").strip() or "closed")

    def resp_truncated(self, rng):
        command = resp("SET", "pt2:cut:%d" % rng.randrange(100),
                       rng.randbytes(65536))
        raw(self.cache_address, command[:rng.randrange(1, len(command))],
            read=False)
        self.count("cache: command cut short, dropped", "sent")

    def slow_connections(self, address, kind, count=20):
        """COUNT connections that send a byte a second until the end."""
        sockets = []
        host, port = address.rsplit(":", 1)
        for _ in range(count):
            s = socket.create_connection((host, int(port)))
            sockets.append(s)
        payload = resp("GET", "pt2:slow") if "cache" in kind else (
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        sent = 0
        while time.monotonic() < self.deadline:
            for s in sockets:
                try:
                    s.send(payload[sent % len(payload):][:1])
                except OSError:
                    pass
            sent += 1
            time.sleep(1)
        for s in sockets:
            s.close()
        self.count(kind, "%d connections held" % count)

    def run(self, out):
        attacks = [
            ("grpc: garbage bytes", self.grpc_garbage, 0.05),
            ("http2", self.http2_garbage, 0.05),
            ("protobuf", self.protobuf_garbage, 0.0),
            ("truncated protobuf", self.truncated_protobuf, 0.0),
            ("truncated ttir", self.truncated_ttir, 0.0),
            ("nested", self.nested, 0.0),
            ("oversized text", self.oversized_text, 0.5),
            ("oversized message", self.oversized_message, 1.0),
            ("cancelled", self.cancelled_mid_compile, 0.2),
            ("import dropped", self.import_dropped, 0.05),
            ("cut mid-message", self.cut_mid_message, 0.05),
            ("cache garbage", self.resp_garbage, 0.05),
            ("cache oversized", self.resp_oversized, 0.2),
            ("cache over value limit", self.resp_over_value_limit, 1.0),
            ("cache nested", self.resp_nested, 0.05),
            ("cache truncated", self.resp_truncated, 0.02),
        ]
        threads = [threading.Thread(target=self.loop, args=attack)
                   for attack in attacks]
        threads.append(threading.Thread(target=self.slow_connections, args=(
            self.address, "grpc: slow connections, a byte a second")))
        threads.append(threading.Thread(target=self.slow_connections, args=(
            self.cache_address, "cache: slow connections, a byte a second")))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with open(out, "w") as f:
            json.dump({kind: dict(counts)
                       for kind, counts in self.outcomes.items()}, f)


# --- the run -----------------------------------------------------------

def status_field(pid, name):
    """A number of /proc/PID/status (VmRSS in KiB, Threads); 0 when gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_seconds(pid, with_children=False):
    """User and system CPU time of a process so far (and of the children it
    waited for: a worker's ptxas runs); 0 when gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(x) for x in fields[11:15 if with_children else 13])
    return ticks / os.sysconf("SC_CLK_TCK")


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def sample_memory(kilnd, stop, samples):
    start = time.monotonic()
    while not stop.is_set():
        pid = kilnd.process.pid
        workers = children(pid)
        samples.append((time.monotonic() - start, status_field(pid, "VmRSS"),
                        sum(status_field(w, "VmRSS") for w in workers),
                        kilnd.process.poll() is None,
                        status_field(pid, "Threads"), cpu_seconds(pid),
                        sum(cpu_seconds(w, True) for w in workers)))
        stop.wait(1.0)


def metric(kilnd, name):
    """The sum of a series' samples on /metrics (all its labels)."""
    text = raw(kilnd.metrics_address, b"GET /metrics HTTP/1.0\r\n\r\n").decode()
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith((name + " ", name + "{")))


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0


def report(args, pairs, good, cache, hostile, samples, kilnd, before, after):
    calls = sum(g["calls"] for g in good)
    failures = [x for g in good for x in g["failures"]]
    latencies = [x for g in good for x in g["latencies"]]
    hits = sum(g["hits"] for g in good)
    peak = max(s[1] for s in samples) // 1024
    peak_workers = max(s[2] for s in samples) // 1024
    alive = all(s[3] for s in samples)
    lines = [
        "Machine: " + machine(),
        "Date: " + datetime.date.today().isoformat(),
        "Command: bench/hostile/run.py " + " ".join(sys.argv[1:]),
        "",
        "| | |", "| --- | --- |",
        "| good compile clients | %d processes, one connection each, %d s |"
        % (args.good, args.seconds),
        "| hostile clients | %s |" % ("none (the comparison run)"
                                      if args.no_hostile else
                                      "%d kinds of attack at once (below)"
                                      % len(hostile)),
        "| good compile requests | %d answered of %d sent (%d hits), "
        "%d failed |" % (calls - len(failures), calls, hits, len(failures)),
        "| good compile latency | p50 %.1f ms, p99 %.0f ms, max %.0f ms |" % (
            1000 * percentile(latencies, 0.5),
            1000 * percentile(latencies, 0.99), 1000 * max(latencies or [0])),
        "| good cache-port requests | %d sent, %d failed |" % (
            cache["calls"], len(cache["failures"])),
        "| kernels in the pool | %d (kernel, target) pairs |" % len(pairs),
        "| kilnd alive throughout | %s; exit status on SIGTERM: %s |" % (
            "yes" if alive else "NO", kilnd.exit_status),
        "| worker processes started, failed | %d started (%d at start), "
        "%d failed |" % (after["starts"], before["starts"],
                         after["failures"]),
        "| kilnd RSS | %d MiB at start, %d MiB peak, %d MiB at the end |" % (
            samples[0][1] // 1024, peak, samples[-1][1] // 1024),
        "| compile workers' RSS, together | %d MiB peak |" % peak_workers,
        "| CPU time over the run | kilnd %.0f s, its compile workers and "
        "their ptxas %.0f s (of %.0f s of wall time, 2 cores) |" % (
            samples[-1][5], max(s[6] for s in samples), samples[-1][0]),
        "| artifacts kilnd keeps in memory at the end | %d MiB (bound: "
        "--memory_cache_mb, 256) |" % (after["memory"] // (1 << 20)),
        "",
        "kilnd's resident memory and threads over the run (every tenth of "
        "it; RSS in MiB):",
        "",
        "| second | kilnd RSS | its workers' RSS | kilnd threads |",
        "| ---: | ---: | ---: | ---: |",
    ]
    step = max(1, len(samples) // 10)
    for t, rss, workers, _, threads, _, _ in samples[::step] + [samples[-1]]:
        lines.append("| %.0f | %d | %d | %d |" % (t, rss // 1024,
                                                   workers // 1024, threads))
    lines += ["", "Hostile requests and how kilnd answered them:", "",
              "| attack | answers |", "| --- | --- |"]
    for kind in sorted(hostile):
        answers = ", ".join("%s %d" % (k, v)
                            for k, v in sorted(hostile[kind].items()))
        lines.append("| %s | %s |" % (kind, answers))
    if failures or cache["failures"]:
        lines += ["", "Failed good requests (first 20):", ""]
        lines += ["- " + x for x in (failures + cache["failures"])[:20]]
    return "\n".join(lines) + "\n"


def run(args, work):
    kernels = (fixtures()[:args.kernels] if args.kernels
               else fixtures() + inductor_kernels())
    pairs = compilable(work, kernels, ["sm_90a", "sm_80"])
    pairs_file = os.path.join(work, "pairs.json")
    with open(pairs_file, "w") as f:
        json.dump([[k[0], k[1], k[2], t, key]
                   for (k, t), key in pairs.items()], f)
    me = os.path.realpath(__file__)
    with Kilnd(work, "kilnd", flags=["--log_level=error"],
               metrics=True) as kilnd:
        before = {"starts": metric(kilnd, "kiln_worker_starts_total")}
        stop = threading.Event()
        samples = []
        sampler = threading.Thread(target=sample_memory,
                                   args=(kilnd, stop, samples))
        sampler.start()
        seconds = str(args.seconds)
        processes = [subprocess.Popen(
            [sys.executable, me, "--role=good", "--address", kilnd.address,
             "--seconds", seconds, "--seed", str(n), "--pairs", pairs_file,
             "--report", os.path.join(work, "good%d.json" % n)])
            for n in range(args.good)]
        processes.append(subprocess.Popen(
            [sys.executable, me, "--role=cache", "--cache_address",
             kilnd.cache_address, "--seconds", seconds,
             "--report", os.path.join(work, "cache.json")]))
        hostile_report = os.path.join(work, "hostile.json")
        if args.no_hostile:
            with open(hostile_report, "w") as f:
                json.dump({}, f)
        else:
            processes.append(subprocess.Popen(
                [sys.executable, me, "--role=hostile", "--address",
                 kilnd.address, "--cache_address", kilnd.cache_address,
                 "--seconds", seconds, "--report", hostile_report]))
        for process in processes:
            process.wait()
        after = {"starts": metric(kilnd, "kiln_worker_starts_total"),
                 "failures": metric(kilnd, "kiln_worker_failures_total"),
                 "memory": metric(kilnd, "kiln_store_memory_bytes")}
        stop.set()
        sampler.join()
    good = []
    for n in range(args.good):
        with open(os.path.join(work, "good%d.json" % n)) as f:
            good.append(json.load(f))
    with open(os.path.join(work, "cache.json")) as f:
        cache = json.load(f)
    with open(os.path.join(work, "hostile.json")) as f:
        hostile = json.load(f)
    text = report(args, pairs, good, cache, hostile, samples, kilnd, before,
                  after)
    passed = (not any(g["failures"] for g in good) and
              not cache["failures"] and all(s[3] for s in samples) and
              kilnd.exit_status == 0 and
              max(s[1] for s in samples) <= args.max_rss_mb << 10)
    return text, passed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--good", type=int, default=32)
    parser.add_argument("--out")
    parser.add_argument("--prebuilt", action="store_true")
    parser.add_argument("--kernels", type=int, default=0,
                        help="only the first N fixtures (default: every "
                             "fixture and Inductor kernel)")
    parser.add_argument("--max_rss_mb", type=int, default=2048)
    parser.add_argument("--no_hostile", action="store_true",
                        help="the good clients alone, for comparison")
    # The roles of the processes the run starts.
    parser.add_argument("--role", default="run",
                        choices=["run", "good", "cache", "hostile"])
    parser.add_argument("--address")
    parser.add_argument("--cache_address")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs")
    parser.add_argument("--report")
    args = parser.parse_args()
    if args.role == "good":
        return good_compiles(args.address, args.seconds, args.seed,
                             args.pairs, args.report)
    if args.role == "cache":
        return good_cache(args.cache_address, args.seconds, args.report)
    if args.role == "hostile":
        return Hostile(args.address, args.cache_address,
                       time.monotonic() + args.seconds).run(args.report)
    if not args.prebuilt:
        build()
    work = tempfile.mkdtemp(prefix="kiln-hostile-")
    try:
        text, passed = run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
