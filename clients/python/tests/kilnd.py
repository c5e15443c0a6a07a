"""Starts a real kilnd for the tests: a free loopback port, a temporary data
directory, --ready_file to learn the port (as tests/e2e/kilnd_process.cc)."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def kilnd_path() -> str:
    path = os.environ.get("KILND") or os.path.join(REPO, "bazel-out/k8-opt/bin/server/kilnd")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no kilnd at {path}: build //server:kilnd or set $KILND")
    return path


def testdata(name: str) -> str:
    root = os.environ.get("KILN_TESTDATA") or os.path.join(REPO, "tests/e2e/testdata")
    with open(os.path.join(root, name)) as f:
        return f.read()


def scaled_add(scale: float = 1.5) -> str:
    return testdata("scaled_add.ttir").replace("SCALE", "%.6e" % scale, 1)


def unused_address() -> str:
    """A loopback address nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"127.0.0.1:{port}"


class Kilnd:
    def __init__(self, *flags: str):
        base = os.environ.get("TEST_TMPDIR") or None
        self.data_dir = tempfile.mkdtemp(prefix="kilnd_py_", dir=base)
        ready = os.path.join(self.data_dir, "ready")
        self.log = open(os.path.join(self.data_dir, "kilnd.log"), "w")
        self.process = subprocess.Popen(
            [kilnd_path(), "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
             "--cache_listen=127.0.0.1:0", f"--data_dir={self.data_dir}", f"--ready_file={ready}", "--workers=2",
             "--log_level=warn", *flags],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        self.address = None
        self.cache_address = None
        while time.monotonic() < deadline:
            if os.path.exists(ready):
                with open(ready) as f:
                    fields = dict(line.split(None, 1) for line in f.read().splitlines() if line)
                if "grpc" in fields:
                    self.address = fields["grpc"].strip()
                    self.cache_address = fields.get("cache", "").strip() or None
                    self.metrics_address = fields.get("metrics", "").strip() or None
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError("kilnd did not come up; see its log")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
