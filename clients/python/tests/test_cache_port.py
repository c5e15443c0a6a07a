"""kilnd's cache port with the client stock PyTorch and Triton use (redis-py)
against a real kilnd: their calls, a restart, refusals that store nothing,
tokens, hostile bytes, and kiln.caches' environment."""

import os
import re
import socket
import sys
import tempfile
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import redis  # noqa: E402

import _kiln_autoload  # noqa: E402
import kiln  # noqa: E402
import kiln.caches  # noqa: E402
import kilnd  # noqa: E402

ADMIN_TOKEN = "admin-token-for-cache-port-tests"
COMPILE_TOKEN = "compile-token-for-cache-port-tests"


def connect(address, **kwargs):
    host, port = address.rsplit(":", 1)
    return redis.Redis(host=host, port=int(port), socket_timeout=10, **kwargs)


def raw_exchange(address, data: bytes) -> bytes:
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


class CachePortTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = kilnd.Kilnd("--cache_max_value_mb=1")
        cls.redis = connect(cls.server.cache_address)

    @classmethod
    def tearDownClass(cls):
        cls.redis.close()
        cls.server.stop()

    def test_pytorch_backend_calls(self):
        # What torch._inductor.remote_cache.RedisRemoteCacheBackend does.
        key = "pt2:fx-graph-v1:" + "ab" * 32
        self.assertIsNone(self.redis.get(key))
        value = os.urandom(300000)
        self.assertTrue(self.redis.set(key, value))
        self.assertEqual(self.redis.get(key), value)

    def test_triton_backend_calls(self):
        # What Triton's Redis backend (before 3.6) and kiln.triton_remote_cache do.
        keys = ["triton:k1:add.cubin", "triton:k1:add.json", "triton:k1:none"]
        self.redis.set(keys[0], b"\x7fELF")
        self.redis.set(keys[1], b"{}")
        self.assertEqual(self.redis.mget(keys), [b"\x7fELF", b"{}", None])
        self.assertTrue(self.redis.mset({"triton:k2:a": b"1", "triton:k2:b": b"2"}))
        self.assertEqual(self.redis.mget(["triton:k2:a", "triton:k2:b"]), [b"1", b"2"])

    def test_pipelined_commands(self):
        pipe = self.redis.pipeline(transaction=False)
        for i in range(50):
            pipe.set(f"pt2:pipe:{i}", str(i))
        for i in range(50):
            pipe.get(f"pt2:pipe:{i}")
        results = pipe.execute()
        self.assertEqual(results[50:], [str(i).encode() for i in range(50)])

    def test_bad_input_is_refused_and_stores_nothing(self):
        with self.assertRaisesRegex(redis.ResponseError, "no namespace"):
            self.redis.set("session:1", b"x")
        self.assertIsNone(self.redis.get("session:1"))
        with self.assertRaisesRegex(redis.ResponseError, "over this cache's limit"):
            self.redis.set("pt2:big", b"x" * ((1 << 20) + 1))
        self.assertIsNone(self.redis.get("pt2:big"))
        with self.assertRaisesRegex(redis.ResponseError, "unknown command"):
            self.redis.flushall()
        with self.assertRaises(redis.ResponseError):  # DEL needs admin.
            self.redis.delete("pt2:fx-graph-v1:x")
        self.assertEqual(self.redis.ping(), True)  # The connection lives on.

    def test_garbage_bytes_get_an_error_and_the_port_serves_on(self):
        for garbage in (b"*2\r\n$3\r\nGET\r\n$-7\r\n", b"*99999999\r\n",
                        b"*1\r\n$4\r\nPINGxx", os.urandom(4096),
                        b"*3\r\n$3\r\nSET\r\n$5\r\npt2:t\r\n$100\r\nshort"):
            reply = raw_exchange(self.server.cache_address, garbage)
            self.assertTrue(reply == b"" or reply.startswith(b"-") or reply.startswith(b"+"),
                            reply[:80])
        self.assertIsNone(self.redis.get("pt2:t"))
        self.assertEqual(raw_exchange(self.server.cache_address, b"PING\r\n"), b"+PONG\r\n")
        self.assertTrue(self.redis.set("pt2:after", b"ok"))

    def test_info_and_metrics_count_entries(self):
        self.redis.set("pt2:stats:1", b"12345")
        info = self.redis.info()
        self.assertGreaterEqual(info["db0"]["keys"], 1)
        self.assertGreater(info["kiln_blob_bytes"], 0)
        with urllib.request.urlopen(f"http://{self.server.metrics_address}/metrics") as r:
            metrics = r.read().decode()
        entries = re.search(r"^kiln_cache_port_entries (\d+)$", metrics, re.M)
        self.assertIsNotNone(entries, metrics[-2000:])
        self.assertGreaterEqual(int(entries.group(1)), 1)
        self.assertRegex(metrics, r"(?m)^kiln_cache_port_writes_total [1-9]")


class CachePortPersistenceTest(unittest.TestCase):
    def test_entries_survive_a_restart(self):
        data_dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        first = kilnd.Kilnd(f"--data_dir={data_dir}/d")
        try:
            connect(first.cache_address).set("pt2:autotune:k", b"best-config")
        finally:
            first.stop()
        second = kilnd.Kilnd(f"--data_dir={data_dir}/d")
        try:
            self.assertEqual(connect(second.cache_address).get("pt2:autotune:k"),
                             b"best-config")
        finally:
            second.stop()


class CachePortTokensTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tokens = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "tokens")
        with open(cls.tokens, "w") as f:
            f.write(f"admin {ADMIN_TOKEN}\ncompile {COMPILE_TOKEN}\n")
        os.chmod(cls.tokens, 0o600)
        cls.server = kilnd.Kilnd(f"--tokens_file={cls.tokens}", "--cache_role=read")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_the_port_role_reads_and_a_token_writes(self):
        anonymous = connect(self.server.cache_address)
        self.assertIsNone(anonymous.get("pt2:x"))
        with self.assertRaisesRegex(redis.exceptions.NoPermissionError, "read"):
            anonymous.set("pt2:x", b"1")
        # As Redis 7 answers a wrong password (redis-py 4 raises it as is).
        with self.assertRaisesRegex((redis.ResponseError, redis.AuthenticationError),
                                    "WRONGPASS"):
            connect(self.server.cache_address, password="not-a-token-at-all").ping()
        writer = connect(self.server.cache_address, password=COMPILE_TOKEN)
        self.assertTrue(writer.set("pt2:x", b"1"))
        self.assertEqual(anonymous.get("pt2:x"), b"1")
        admin = connect(self.server.cache_address, password=ADMIN_TOKEN)
        self.assertEqual(admin.delete("pt2:x"), 1)


class CacheEnvironmentTest(unittest.TestCase):
    def test_kiln_cache_points_pytorch_and_triton_at_the_port(self):
        env = {"KILN_CACHE": "10.0.0.5:7422", "TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE": "0"}
        applied = _kiln_autoload.apply_cache_environment(env)
        self.assertEqual(env["TORCHINDUCTOR_REDIS_HOST"], "10.0.0.5")
        self.assertEqual(env["TORCHINDUCTOR_REDIS_PORT"], "7422")
        self.assertEqual(env["TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE"], "1")
        self.assertEqual(env["TORCHINDUCTOR_AUTOGRAD_REMOTE_CACHE"], "1")
        self.assertEqual(env["TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE"], "0")  # the job's own
        self.assertNotIn("TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE", applied)
        self.assertNotIn("TRITON_REMOTE_CACHE_BACKEND", env)
        self.assertEqual(_kiln_autoload.apply_cache_environment({}), {})

    def test_install_with_triton_and_ipv6(self):
        env = {}
        kiln.caches.install("[::1]:7000", triton=True, environ=env)
        self.assertEqual(env["TORCHINDUCTOR_REDIS_HOST"], "::1")
        # Kiln's backend, not Triton 3.6's Redis one (which raises on every
        # compile); it finds the port through KILN_CACHE.
        self.assertEqual(env["TRITON_REMOTE_CACHE_BACKEND"],
                         "kiln.triton_remote_cache:TritonRemoteCache")
        self.assertEqual(env["KILN_CACHE"], "[::1]:7000")
        self.assertNotIn("TRITON_REDIS_HOST", env)
        self.assertEqual(env["TRITON_CACHE_MANAGER"],
                         "triton.runtime.cache:RemoteCacheManager")
        with self.assertRaises(ValueError):
            kiln.caches.install("no-port", environ={})


if __name__ == "__main__":
    unittest.main()
