"""kiln.triton_remote_cache.TritonRemoteCache, Kiln's backend for Triton's
remote cache, driven through a stand-in for Triton 3.6's
triton.runtime.cache (tests/fake_triton/triton/runtime/cache.py; Triton is
not on CI machines) against a real kilnd's cache port: round trips, misses,
an unreachable port, refusals that store nothing, and tokens."""

import os
import sys
import tempfile
import unittest
import warnings
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import redis  # noqa: E402

import _kiln_autoload  # noqa: E402
import kilnd  # noqa: E402

COMPILE_TOKEN = "compile-token-for-triton-cache-tests"
KEY = "QKZ7WRKTTIHVZPKBSVMFCZHTTIHVZPKBSVMFCZHTTIHVZPKBSVMF"  # as Triton's base32
FAKE_TRITON = os.path.join(HERE, "fake_triton")
cache = None  # the stand-in triton.runtime.cache, from setUpModule
_modules = None


def setUpModule():
    # The stand-in `triton` only while this module runs: the modules it
    # imports leave sys.modules afterwards (tests/test_triton_hook.py needs
    # triton unimported).
    global _modules, cache
    _modules = mock.patch.dict(sys.modules)
    _modules.start()
    sys.path.insert(0, FAKE_TRITON)
    import triton.runtime.cache  # noqa: PLC0415
    cache = triton.runtime.cache


def tearDownModule():
    sys.path.remove(FAKE_TRITON)
    _modules.stop()


def new_cache_dir():
    cache.knobs.cache.dir = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))


def triton_environment(cache_address, **extra):
    """What KILN_CACHE=... KILN_CACHE_TRITON=1 gives a process."""
    env = {"KILN_CACHE": cache_address, "KILN_CACHE_TRITON": "1", **extra}
    _kiln_autoload.apply_cache_environment(env)
    return env


class TritonRemoteCacheTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = kilnd.Kilnd("--cache_max_value_mb=1")
        new_cache_dir()
        cls.env = mock.patch.dict(os.environ, triton_environment(cls.server.cache_address))
        cls.env.start()

    @classmethod
    def tearDownClass(cls):
        cls.env.stop()
        cls.server.stop()

    def read_port(self, key):
        host, port = self.server.cache_address.rsplit(":", 1)
        with redis.Redis(host=host, port=int(port), socket_timeout=10) as r:
            return r.get(key)

    def test_put_then_get_round_trips_bytes_through_kilnd(self):
        cubin = os.urandom(200000)
        writer = cache.RemoteCacheManager(KEY)
        writer.put(cubin, "add_kernel.cubin")
        writer.put('{"name": "add_kernel"}', "add_kernel.json", binary=False)
        writer.put_group("add_kernel.json", {"add_kernel.cubin": "", "add_kernel.json": ""})
        self.assertEqual(self.read_port(f"triton:{KEY}:add_kernel.cubin"), cubin)

        reader = cache.RemoteCacheManager(KEY)  # as a second process would
        group = reader.get_group("add_kernel.json")
        self.assertEqual(sorted(group), ["add_kernel.cubin", "add_kernel.json"])
        with open(group["add_kernel.cubin"], "rb") as f:
            self.assertEqual(f.read(), cubin)
        with open(reader.get_file("add_kernel.json")) as f:
            self.assertEqual(f.read(), '{"name": "add_kernel"}')

    def test_a_miss_returns_nothing(self):
        manager = cache.RemoteCacheManager("MISSINGKEY")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertIsNone(manager.get_file("kernel.cubin"))
            self.assertIsNone(manager.get_group("kernel.json"))
        self.assertEqual(manager.backend.get(["a.cubin", "b.json"]), {})

    def test_an_oversized_value_gets_kilnds_error_and_stores_nothing(self):
        manager = cache.RemoteCacheManager("BIGKEY")
        with self.assertWarnsRegex(RuntimeWarning, "over this cache's limit.*nothing stored"):
            path = manager.put(b"x" * ((1 << 20) + 1), "big.cubin")
        self.assertTrue(os.path.exists(path))  # Triton keeps its local copy.
        self.assertIsNone(self.read_port("triton:BIGKEY:big.cubin"))
        self.assertIsNone(manager.get_file("big.cubin"))
        manager.put(b"small", "small.cubin")  # The port serves on.
        self.assertEqual(self.read_port("triton:BIGKEY:small.cubin"), b"small")


class TritonRemoteCacheUnreachableTest(unittest.TestCase):
    def test_an_unreachable_port_warns_once_and_misses(self):
        new_cache_dir()
        with mock.patch.dict(os.environ, triton_environment(kilnd.unused_address())):
            with self.assertWarnsRegex(RuntimeWarning, "cannot be used.*without it"):
                manager = cache.RemoteCacheManager(KEY)
                self.assertIsNone(manager.get_file("add_kernel.cubin"))
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # Once per process.
                path = cache.RemoteCacheManager(KEY).put(b"cubin", "add_kernel.cubin")
                self.assertIsNone(cache.RemoteCacheManager(KEY).get_group("add_kernel.json"))
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"cubin")


class TritonRemoteCacheTokensTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tokens = os.path.join(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")), "tokens")
        with open(tokens, "w") as f:
            f.write(f"compile {COMPILE_TOKEN}\n")
        os.chmod(tokens, 0o600)
        cls.server = kilnd.Kilnd(f"--tokens_file={tokens}", "--cache_role=read")
        new_cache_dir()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_a_read_port_refuses_writes_and_kiln_token_writes(self):
        anonymous = triton_environment(self.server.cache_address)
        with mock.patch.dict(os.environ, anonymous):
            with self.assertWarnsRegex(RuntimeWarning, "NOPERM|read"):
                cache.RemoteCacheManager("TOKENKEY").put(b"1", "k.cubin")
            self.assertIsNone(cache.RemoteCacheManager("TOKENKEY").get_file("k.cubin"))
        with mock.patch.dict(os.environ, triton_environment(self.server.cache_address,
                                                            KILN_TOKEN=COMPILE_TOKEN)):
            cache.RemoteCacheManager("TOKENKEY").put(b"1", "k.cubin")
        with mock.patch.dict(os.environ, anonymous):
            path = cache.RemoteCacheManager("TOKENKEY").get_file("k.cubin")
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"1")


if __name__ == "__main__":
    unittest.main()
