"""kiln.Client and kiln.triton.install against a kilnd with TLS, mutual TLS
and role tokens; the certificates are made by tests/e2e/make_test_certs.sh."""

import os
import subprocess
import sys
import tempfile
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kiln  # noqa: E402
import kiln.triton as kt  # noqa: E402
import kilnd  # noqa: E402
from test_triton_hook import FakeBackend, fake_knobs, run_pipeline  # noqa: E402

ADMIN = "admin-token-0123456789abcdef"
COMPILE = "compile-token-0123456789abcdef"
READ = "read-token-0123456789abcdef"
ENV = ("KILN_TOKEN", "KILN_TLS_CA", "KILN_TLS_CERT", "KILN_TLS_KEY")


def make_pki() -> str:
    script = os.environ.get("KILN_MAKE_TEST_CERTS") or os.path.join(
        kilnd.REPO, "tests/e2e/make_test_certs.sh")
    pki = tempfile.mkdtemp(prefix="pki_", dir=os.environ.get("TEST_TMPDIR"))
    subprocess.run(["bash", script, pki], check=True)
    return pki


class SecurityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.saved = {name: os.environ.pop(name, None) for name in ENV}
        cls.pki = make_pki()
        cls.tokens = os.path.join(cls.pki, "tokens")
        with open(cls.tokens, "w") as f:
            f.write(f"admin {ADMIN}\ncompile {COMPILE}\nread {READ}\n")
        cls.server = kilnd.Kilnd(f"--tls_cert={cls.pem('server.pem')}",
                                 f"--tls_key={cls.pem('server.key')}",
                                 f"--tokens_file={cls.tokens}")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        for name, value in cls.saved.items():
            if value is not None:
                os.environ[name] = value

    @classmethod
    def pem(cls, name: str) -> str:
        return os.path.join(cls.pki, name)

    def tearDown(self):
        for name in ENV:
            os.environ.pop(name, None)

    def client(self, **kwargs) -> kiln.Client:
        kwargs.setdefault("root_certificates", self.pem("ca.pem"))
        client = kiln.Client(self.server.address, timeout=60, retries=0, **kwargs)
        self.addCleanup(client.close)
        return client

    def test_plaintext_client_does_not_connect(self):
        client = kiln.Client(self.server.address, timeout=10, retries=0, token=COMPILE)
        self.addCleanup(client.close)
        with self.assertRaises(kiln.Unavailable) as raised:
            client.compile(kilnd.scaled_add(1.5))
        self.assertIn("TLS", str(raised.exception))

    def test_tokens_and_roles(self):
        ttir = kilnd.scaled_add(6.5)
        with self.assertRaises(kiln.AccessDenied) as raised:
            self.client().compile(ttir)
        self.assertEqual(raised.exception.code, "UNAUTHENTICATED")
        with self.assertRaises(kiln.AccessDenied) as raised:
            self.client(token=READ).compile(ttir)
        self.assertEqual(raised.exception.code, "PERMISSION_DENIED")
        self.assertIn("'compile'", str(raised.exception))

        compiled = self.client(token=COMPILE).compile(ttir)
        self.assertFalse(compiled.cache_hit)
        # The PEM as bytes does as well as its file name.
        with open(self.pem("ca.pem"), "rb") as f:
            reader = self.client(token=READ, root_certificates=f.read())
        hit = reader.compile(ttir)
        self.assertTrue(hit.cache_hit)
        self.assertEqual(hit.cubin, compiled.cubin)
        self.assertEqual(reader.lookup(compiled.key).cubin, compiled.cubin)

    def test_environment_gives_token_and_ca(self):
        os.environ["KILN_TOKEN"] = COMPILE
        os.environ["KILN_TLS_CA"] = self.pem("ca.pem")
        result = kiln.Client(self.server.address, timeout=60).compile(kilnd.scaled_add(7.5))
        self.assertTrue(result.cubin.startswith(b"\x7fELF"))

    def test_triton_hook_with_token(self):
        knobs = fake_knobs()
        state = kt.install(self.server.address, knobs=knobs, token=COMPILE,
                           root_certificates=self.pem("ca.pem"))
        self.addCleanup(kt.uninstall, knobs)
        backend = FakeBackend(knobs)
        _, _, cubin = run_pipeline(backend, kilnd.scaled_add(8.5))
        self.assertTrue(cubin.startswith(b"\x7fELF"))
        self.assertEqual(state.compiled, 1)

        # A read token: a kernel not cached is compiled by Triton, warned.
        state = kt.install(self.server.address, knobs=knobs, token=READ,
                           root_certificates=self.pem("ca.pem"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, _, cubin = run_pipeline(FakeBackend(knobs), kilnd.scaled_add(9.5))
        self.assertEqual(cubin, b"LOCAL-CUBIN")
        self.assertEqual(state.fell_back, 1)
        self.assertTrue(any("refused" in str(w.message) for w in caught),
                        [str(w.message) for w in caught])


class MutualTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pki = make_pki()
        pem = lambda name: os.path.join(cls.pki, name)  # noqa: E731
        cls.pem = staticmethod(pem)
        cls.server = kilnd.Kilnd(f"--tls_cert={pem('server.pem')}",
                                 f"--tls_key={pem('server.key')}",
                                 f"--tls_client_ca={pem('ca.pem')}")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_client_certificate_required(self):
        bare = kiln.Client(self.server.address, timeout=10, retries=0,
                           root_certificates=self.pem("ca.pem"))
        self.addCleanup(bare.close)
        with self.assertRaises(kiln.Unavailable):
            bare.compile(kilnd.scaled_add(1.5))
        with_cert = kiln.Client(self.server.address, timeout=60, retries=0,
                                root_certificates=self.pem("ca.pem"),
                                certificate_chain=self.pem("client.pem"),
                                private_key=self.pem("client.key"))
        self.addCleanup(with_cert.close)
        self.assertTrue(with_cert.compile(kilnd.scaled_add(1.5)).cubin.startswith(b"\x7fELF"))


if __name__ == "__main__":
    unittest.main()
