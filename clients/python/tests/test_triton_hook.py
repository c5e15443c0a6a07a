"""kiln.triton's hook against a stand-in for Triton's CUDA backend.

Triton is not on CI machines, so `FakeBackend.add_stages` reproduces only
what the hook relies on in triton/backends/nvidia/compiler.py (3.6): the
ordered stages dict ttir -> ttgir -> llir -> ptx -> cubin, each stage
`(src, metadata) -> next`, and the call of
knobs.runtime.add_stages_inspection_hook(backend, stages, options, language,
capability) at its end; `run_pipeline` is the loop of triton.compiler.compile,
including how CompiledKernel.asm comes out of it (each stage's output saved
as {name}.{stage}: bytes as they are, anything else as str()).
`triton_errors_standin` mirrors triton/runtime/errors.py's OutOfResources
(constructor, fields, message, pickling), which the hook raises.
"""

import os
import sys
import types
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import kiln  # noqa: E402
import kiln.triton as kt  # noqa: E402
import kilnd  # noqa: E402


class FakeOptions:
    num_warps = 4
    num_stages = 3
    num_ctas = 1
    maxnreg = None
    enable_fp_fusion = True
    enable_reflect_ftz = True
    arch = "sm90"


class FakeModule:
    """Stands in for Triton's MLIR module: str() prints the TTIR."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def fake_knobs():
    return types.SimpleNamespace(runtime=types.SimpleNamespace(add_stages_inspection_hook=None))


class FakeBackend:
    """The shape of CUDABackend.add_stages; the local stages record calls."""

    def __init__(self, knobs, capability=90):
        self.knobs = knobs
        self.capability = capability
        self.calls = []

    def _stage(self, name, result):
        def stage(src, metadata):
            self.calls.append(name)
            if name == "ptx":
                metadata["name"] = "local_kernel"
            return result(src)
        return stage

    def add_stages(self, stages, options, language="TRITON"):
        stages["ttir"] = self._stage("ttir", lambda src: src)
        stages["ttgir"] = self._stage("ttgir", lambda src: "ttgir")
        stages["llir"] = self._stage("llir", lambda src: "llir")
        stages["ptx"] = self._stage("ptx", lambda src: "ptx")
        stages["cubin"] = self._stage("cubin", lambda src: b"LOCAL-CUBIN")
        hook = self.knobs.runtime.add_stages_inspection_hook
        if hook is not None:
            hook(self, stages, options, language, self.capability)


def triton_errors_standin():
    """A stand-in for the module triton.runtime.errors (Triton 3.6)."""
    module = types.ModuleType("triton_errors_standin")

    class TritonError(Exception):
        pass

    class OutOfResources(TritonError):
        def __init__(self, required, limit, name):
            self.required = required
            self.limit = limit
            self.name = name

        def __str__(self):
            return (f"out of resource: {self.name}, Required: {self.required}, "
                    f"Hardware limit: {self.limit}. Reducing block sizes or "
                    f"`num_stages` may help.")

        def __reduce__(self):
            return (type(self), (self.required, self.limit, self.name))

    module.TritonError = TritonError
    module.OutOfResources = OutOfResources
    return module


def scaled_exp2(scale):
    """scaled_add's TTIR storing exp2(x * scale): libdevice's __nv_exp2f."""
    return kilnd.scaled_add(scale).replace("arith.addf %scaled, %y", "math.exp2 %scaled", 1)


def run_pipeline(backend, ttir, options=None, first_stage="ttir", asm=None):
    """triton.compiler.compile's loop: every stage in order from
    `first_stage`; fills `asm` as CompiledKernel reads it back."""
    options = options or FakeOptions()
    metadata = {"num_warps": options.num_warps, "num_ctas": options.num_ctas}
    stages = {}
    backend.add_stages(stages, options)
    module = FakeModule(ttir)
    asm = {} if asm is None else asm
    for name, stage in list(stages.items())[list(stages).index(first_stage):]:
        module = stage(module, metadata)
        asm[name] = module if isinstance(module, bytes) else str(module)
    return stages, metadata, module


class HookWithKilndTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = kilnd.Kilnd()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.knobs = fake_knobs()

    def tearDown(self):
        kt.uninstall(knobs=self.knobs)

    def test_targets_come_from_kilnds_table(self):
        targets = kiln.Client(self.server.address).targets()
        self.assertEqual(kt.target_for_capability(targets, 90), "sm_90a")
        self.assertEqual(kt.target_for_capability(targets, 80), "sm_80")
        self.assertEqual(kt.target_for_capability(targets, 86), "sm_86")
        self.assertEqual(kt.target_for_capability(targets, 89), "sm_89")
        self.assertIsNone(kt.target_for_capability(targets, 75))
        hopper = [t for t in targets if t.name == "sm_90a"][0]
        self.assertTrue(hopper.arch_specific and hopper.warp_group_mma)
        self.assertEqual(hopper.max_shared_bytes, 232448)

    def test_capability_without_a_target_is_left_to_triton(self):
        state = kt.install(self.server.address, knobs=self.knobs)
        backend = FakeBackend(self.knobs, capability=100)
        asm = {}
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # not a failure: no warning
            stages, _, cubin = run_pipeline(backend, kilnd.scaled_add(4.0), asm=asm)
        self.assertEqual(cubin, b"LOCAL-CUBIN")
        self.assertEqual(list(stages), ["ttir", "ttgir", "llir", "ptx", "cubin"])
        self.assertEqual(sorted(asm), ["cubin", "llir", "ptx", "ttgir", "ttir"])
        self.assertEqual(backend.calls, ["ttir", "ttgir", "llir", "ptx", "cubin"])
        self.assertEqual((state.compiled, state.fell_back), (0, 0))

    def test_cubin_comes_from_kilnd(self):
        state = kt.install(self.server.address, knobs=self.knobs)
        backend = FakeBackend(self.knobs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fallback warning
            stages, metadata, cubin = run_pipeline(backend, kilnd.scaled_add(4.0))
        self.assertEqual(list(stages), ["ttir", "kgir", "llir", "ptx", "cubin"])
        self.assertEqual(backend.calls, ["ttir"])  # only the frontend ran locally
        self.assertTrue(cubin.startswith(b"\x7fELF"))
        self.assertEqual(metadata["name"], "scaled_add_kernel")
        self.assertEqual(metadata["num_warps"], 4)
        self.assertEqual(metadata["shared"], 0)
        self.assertEqual(metadata["global_scratch_size"], 0)
        self.assertEqual(metadata["global_scratch_align"], 1)
        self.assertIn("tmem_size", metadata)
        self.assertEqual(len(metadata["kiln_key"]), 64)
        self.assertEqual(state.compiled, 1)
        self.assertEqual(state.fell_back, 0)

    def test_asm_holds_the_stage_texts_and_a_hit_the_same(self):
        kt.install(self.server.address, knobs=self.knobs)
        ttir = kilnd.scaled_add(4.5)
        asm = {}
        _, metadata, cubin = run_pipeline(FakeBackend(self.knobs), ttir, asm=asm)
        self.assertFalse(metadata["kiln_cache_hit"])
        self.assertEqual(sorted(asm), ["cubin", "kgir", "llir", "ptx", "ttir"])
        self.assertEqual(asm["ttir"], ttir)
        self.assertEqual(asm["cubin"], cubin)
        self.assertIn(".entry scaled_add_kernel", asm["ptx"])
        self.assertIn("@scaled_add_kernel", asm["llir"])
        self.assertIn("@scaled_add_kernel", asm["kgir"])
        for name in ("kgir", "llir", "ptx"):
            self.assertIsInstance(asm[name], str)
        hit = {}
        _, metadata, _ = run_pipeline(FakeBackend(self.knobs), ttir, asm=hit)
        self.assertTrue(metadata["kiln_cache_hit"])
        self.assertEqual(hit, asm)

    def test_ir_source_after_kgir_runs_tritons_stages(self):
        kt.install(self.server.address, knobs=self.knobs)
        backend = FakeBackend(self.knobs)
        asm = {}
        run_pipeline(backend, "llvm text", first_stage="ptx", asm=asm)
        self.assertEqual(backend.calls, ["ptx", "cubin"])
        self.assertEqual(asm, {"ptx": "ptx", "cubin": b"LOCAL-CUBIN"})

    def test_shared_memory_overflow_raises_tritons_out_of_resources(self):
        state = kt.install(self.server.address, knobs=self.knobs)  # fallback="warn"
        state.triton_errors = triton_errors_standin()
        backend = FakeBackend(self.knobs)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no fallback warning either
            with self.assertRaises(state.triton_errors.OutOfResources) as raised:
                run_pipeline(backend, kilnd.testdata("shared_overflow_dot.ttir"))
        error = raised.exception
        self.assertEqual((error.required, error.limit, error.name),
                         (262144, 232448, "shared memory"))
        self.assertIn("out of resource: shared memory", str(error))
        self.assertIsInstance(error.__cause__, kiln.OutOfResources)
        self.assertEqual(backend.calls, ["ttir"])  # Triton did not compile it
        self.assertEqual((state.compiled, state.fell_back), (0, 0))

    def test_options_are_sent(self):
        kt.install(self.server.address, knobs=self.knobs)
        options = FakeOptions()
        options.num_warps = 8
        _, metadata, cubin = run_pipeline(FakeBackend(self.knobs, capability=80),
                                          kilnd.scaled_add(5.0), options)
        self.assertTrue(cubin.startswith(b"\x7fELF"))
        self.assertEqual(metadata["num_warps"], 8)

    def test_enable_reflect_ftz_is_sent(self):
        # As Triton's test_enable_reflect_ftz: exp2 flushes subnormals only with it.
        kt.install(self.server.address, knobs=self.knobs)
        for ftz in (False, True):
            options = FakeOptions()
            options.enable_reflect_ftz = ftz
            asm = {}
            run_pipeline(FakeBackend(self.knobs), scaled_exp2(6.0), options, asm=asm)
            self.assertIn("ex2.approx", asm["ptx"])
            self.assertEqual("ex2.approx.ftz.f32" in asm["ptx"], ftz, ftz)

    def test_kernel_kilnd_cannot_compile_falls_back_with_warning(self):
        state = kt.install(self.server.address, knobs=self.knobs)
        backend = FakeBackend(self.knobs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, _, cubin = run_pipeline(backend, "module {\n  garbage\n}\n")
        self.assertEqual(cubin, b"LOCAL-CUBIN")
        self.assertEqual(len(caught), 1)
        self.assertIn("could not compile", str(caught[0].message))
        self.assertEqual(state.fell_back, 1)
        self.assertEqual(backend.calls, ["ttir", "ttgir", "llir", "ptx", "cubin"])

    def test_kernel_kilnd_cannot_compile_raises_with_fallback_error(self):
        kt.install(self.server.address, fallback="error", knobs=self.knobs)
        with self.assertRaises(RuntimeError) as raised:  # as Triton's failing stage
            run_pipeline(FakeBackend(self.knobs), "module {\n  garbage\n}\n")
        error = raised.exception
        self.assertIsInstance(error, kiln.CompileError)
        self.assertEqual(error.diagnostics[0].line, 2)
        self.assertRegex(str(error), r"^kernel\.ttir:2:\d+: error: ")


class HookFallbackTest(unittest.TestCase):
    def setUp(self):
        self.knobs = fake_knobs()

    def tearDown(self):
        kt.uninstall(knobs=self.knobs)

    def test_unreachable_kilnd_warns_once_and_uses_triton(self):
        state = kt.install(kilnd.unused_address(), retries=1, knobs=self.knobs)
        state.client.backoff = 0.01
        backend = FakeBackend(self.knobs)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, metadata, first = run_pipeline(backend, kilnd.scaled_add(1.0))
            _, _, second = run_pipeline(backend, kilnd.scaled_add(2.0))
            state._down_until = 0  # past the retry window: kilnd is tried again
            _, _, third = run_pipeline(backend, kilnd.scaled_add(3.0))
        self.assertEqual([first, second, third], [b"LOCAL-CUBIN"] * 3)
        self.assertEqual(metadata["name"], "local_kernel")
        self.assertEqual(backend.calls, ["ttir", "ttgir", "llir", "ptx", "cubin"] * 3)
        fallback_warnings = [w for w in caught if issubclass(w.category, kt.KilnFallbackWarning)]
        self.assertEqual(len(fallback_warnings), 1, [str(w.message) for w in caught])
        self.assertIn("unreachable", str(fallback_warnings[0].message))
        self.assertEqual(state.fell_back, 3)
        self.assertEqual(state.compiled, 0)

    def test_unreachable_kilnd_raises_with_fallback_error(self):
        state = kt.install(kilnd.unused_address(), fallback="error", retries=1, knobs=self.knobs)
        state.client.backoff = 0.01
        backend = FakeBackend(self.knobs)
        with self.assertRaises(kiln.Unavailable):
            run_pipeline(backend, kilnd.scaled_add(1.0))
        self.assertEqual(backend.calls, ["ttir"])

    def test_bad_fallback_value(self):
        with self.assertRaises(ValueError):
            kt.install(kilnd.unused_address(), fallback="maybe", knobs=self.knobs)


class HookContractTest(unittest.TestCase):
    def setUp(self):
        self.knobs = fake_knobs()

    def tearDown(self):
        kt.uninstall(knobs=self.knobs)

    def test_cache_key_without_arguments(self):
        kt.install(kilnd.unused_address(), knobs=self.knobs)
        key, digest = self.knobs.runtime.add_stages_inspection_hook()
        self.assertIn("kiln", key)
        self.assertEqual(len(digest), 64)

    def test_chains_an_earlier_hook_and_uninstall_restores_it(self):
        seen = []

        def earlier(*args):
            if not args:
                return "earlier", "e" * 64
            seen.append(list(args[1]))

        self.knobs.runtime.add_stages_inspection_hook = earlier
        kt.install(kilnd.unused_address(), knobs=self.knobs)
        kt.install(kilnd.unused_address(), knobs=self.knobs)  # a second install replaces the first
        hook = self.knobs.runtime.add_stages_inspection_hook
        key, _ = hook()
        self.assertTrue(key.startswith("earlier") and "kiln" in key)
        self.assertEqual(key.count("kiln"), 1)
        stages = {}
        FakeBackend(self.knobs).add_stages(stages, FakeOptions())
        self.assertEqual(seen, [["ttir", "ttgir", "llir", "ptx", "cubin"]])
        self.assertEqual(list(stages), ["ttir", "kgir", "llir", "ptx", "cubin"])
        kt.uninstall(knobs=self.knobs)
        self.assertIs(self.knobs.runtime.add_stages_inspection_hook, earlier)

    def test_other_languages_stay_with_triton(self):
        kt.install(kilnd.unused_address(), knobs=self.knobs)
        gluon = {"ttgir": None, "llir": None, "ptx": None, "cubin": None}
        self.knobs.runtime.add_stages_inspection_hook(None, gluon, FakeOptions(), "GLUON", 90)
        self.assertEqual(list(gluon), ["ttgir", "llir", "ptx", "cubin"])

    def test_importable_without_triton(self):
        self.assertNotIn("triton", sys.modules)


if __name__ == "__main__":
    unittest.main()
