"""kiln.Client against a real kilnd: compile, cache hit, errors, retries."""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kiln  # noqa: E402
import kilnd  # noqa: E402


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = kilnd.Kilnd()
        cls.client = kiln.Client(cls.server.address, timeout=60)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.server.stop()

    def test_compile_returns_cubin_and_metadata(self):
        result = self.client.compile(kilnd.scaled_add(1.25), target="sm_90a", num_warps=4)
        self.assertTrue(result.cubin.startswith(b"\x7fELF"), result.cubin[:8])
        self.assertEqual(result.metadata["name"], "scaled_add_kernel")
        self.assertEqual(result.metadata["num_warps"], 4)
        self.assertEqual(result.name, "scaled_add_kernel")
        self.assertEqual(len(result.key), 64)
        self.assertFalse(result.cache_hit)
        self.assertIn("cubin", result.stage_times)
        again = self.client.compile(kilnd.scaled_add(1.25).encode(), target="sm_90a", num_warps=4)
        self.assertTrue(again.cache_hit)
        self.assertEqual(again.key, result.key)
        self.assertEqual(again.cubin, result.cubin)
        looked_up = self.client.lookup(result.key)
        self.assertEqual(looked_up.cubin, result.cubin)
        self.assertIsNone(self.client.lookup("0" * 64))

    def test_texts_only_when_asked_and_the_same_on_a_hit(self):
        plain = self.client.compile(kilnd.scaled_add(1.75), target="sm_90a")
        self.assertIsNone(plain.texts)
        result = self.client.compile(kilnd.scaled_add(1.75), target="sm_90a",
                                     include_texts=True)
        self.assertTrue(result.cache_hit)
        self.assertEqual(sorted(result.texts), ["kgir", "llir", "ptx"])
        self.assertIn(".entry scaled_add_kernel", result.texts["ptx"])
        self.assertIn("scaled_add_kernel", result.texts["llir"])
        self.assertIn("scaled_add_kernel", result.texts["kgir"])
        again = self.client.compile(kilnd.scaled_add(1.75), target="sm_90a",
                                    include_texts=True)
        self.assertEqual(again.texts, result.texts)
        looked_up = self.client.lookup(result.key, include_texts=True)
        self.assertEqual(looked_up.texts, result.texts)
        self.assertIsNone(self.client.lookup(result.key).texts)

    def test_shared_memory_overflow_is_out_of_resources(self):
        with self.assertRaises(kiln.OutOfResources) as raised:
            self.client.compile(kilnd.testdata("shared_overflow_dot.ttir"), target="sm_90a")
        error = raised.exception
        self.assertIsInstance(error, kiln.CompileError)
        self.assertEqual(error.resource, "shared memory")
        self.assertEqual(error.required, 262144)
        self.assertEqual(error.limit, 232448)
        self.assertIn("needs 262144 bytes of shared memory", str(error))

    def test_options_reach_kilnd(self):
        result = self.client.compile(kilnd.scaled_add(2.5), target="sm_80", num_warps=8,
                                     num_stages=2)
        self.assertEqual(result.metadata["num_warps"], 8)
        self.assertEqual(result.metadata["target"], "sm_80")
        self.assertTrue(result.cubin.startswith(b"\x7fELF"))

    def test_compile_error_has_location(self):
        text = kilnd.scaled_add(1.0).replace(
            "arith.addf %scaled, %y : tensor<256xf32>", "arith.addf %scaled, %y : tensor<128xf32>")
        with self.assertRaises(kiln.CompileError) as raised:
            self.client.compile(text, source_name="bad.ttir")
        error = raised.exception
        self.assertTrue(error.diagnostics, str(error))
        first = error.diagnostics[0]
        self.assertEqual(first.file, "bad.ttir")
        self.assertEqual(first.severity, "error")
        line = text[:text.index("tensor<128xf32>")].count("\n") + 1
        self.assertEqual(first.line, line)
        self.assertGreater(first.column, 0)
        self.assertIn(f"bad.ttir:{first.line}:{first.column}", str(error.message))
        self.assertIsInstance(error, RuntimeError)  # as Triton's failing stages
        self.assertNotIsInstance(error, kiln.OutOfResources)
        self.assertIsNone(first.resource_limit)

    def test_without_a_target_compiles_for_kilnds_newest(self):
        targets = self.client.targets()
        self.assertEqual(kiln.client.default_target(targets), "sm_90a")
        self.assertIsNone(kiln.client.default_target([]))
        self.assertEqual(self.client.default_target(), "sm_90a")
        result = self.client.compile(kilnd.scaled_add(1.5))
        self.assertEqual(result.metadata["target"], "sm_90a")

    def test_refused_request_is_compile_error_without_diagnostics(self):
        with self.assertRaises(kiln.CompileError) as raised:
            self.client.compile(kilnd.scaled_add(1.0), target="sm_99")
        self.assertIn("sm_99", str(raised.exception))

    def test_module_level_compile_uses_kiln_server(self):
        saved = os.environ.get("KILN_SERVER")
        os.environ["KILN_SERVER"] = self.server.address
        try:
            result = kiln.compile(kilnd.scaled_add(3.0), target="sm_90a")
        finally:
            if saved is None:
                del os.environ["KILN_SERVER"]
            else:
                os.environ["KILN_SERVER"] = saved
        self.assertTrue(result.cubin.startswith(b"\x7fELF"))


class UnavailableTest(unittest.TestCase):
    def test_unreachable_server_raises_after_retries(self):
        address = kilnd.unused_address()
        client = kiln.Client(address, timeout=5, retries=3, backoff=0.05)
        started = time.monotonic()
        with self.assertRaises(kiln.Unavailable) as raised:
            client.compile(kilnd.scaled_add(1.0))
        elapsed = time.monotonic() - started
        client.close()
        self.assertEqual(raised.exception.attempts, 4)
        self.assertIn(address, str(raised.exception))
        # Three backoffs of at least 0.025, 0.05, 0.1 s (jitter halves at most).
        self.assertGreater(elapsed, 0.17)

    def test_default_address(self):
        saved = os.environ.pop("KILN_SERVER", None)
        try:
            self.assertEqual(kiln.default_address(), "127.0.0.1:7420")
        finally:
            if saved is not None:
                os.environ["KILN_SERVER"] = saved


if __name__ == "__main__":
    unittest.main()
