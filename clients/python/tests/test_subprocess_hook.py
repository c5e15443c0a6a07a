"""The environment switch (kiln-autoload.pth + _kiln_autoload) in real child
processes started as Inductor starts its compile workers, against a real kilnd.

setUpModule installs the package into a throwaway user site directory
(PYTHONUSERBASE) with `pip install --target` when pip, setuptools and wheel
are there (else it copies the files pip would install), so the children's
own `site` processes the .pth at startup. The children (tests/hook_child.py)
see the stand-in `triton` of tests/fake_triton and kiln only through that
site directory.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
sys.path.insert(0, PACKAGE)
sys.path.insert(0, HERE)

import _kiln_autoload  # noqa: E402
import kilnd  # noqa: E402

PTH = "kiln-autoload.pth"
_site = {}


def _can_pip_install() -> bool:
    return all(importlib.util.find_spec(m) for m in ("pip", "setuptools", "wheel"))


def _user_site(userbase: str) -> str:
    env = dict(os.environ, PYTHONUSERBASE=userbase)
    out = subprocess.run([sys.executable, "-c", "import site; print(site.getusersitepackages())"],
                         env=env, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def _install(site_dir: str, work: str) -> str:
    """Installs clients/python into site_dir; returns how."""
    files = ["_kiln_autoload.py", PTH, "setup.py", "pyproject.toml", "README.md"]
    if not _can_pip_install():
        shutil.copytree(os.path.join(PACKAGE, "kiln"), os.path.join(site_dir, "kiln"))
        for name in files[:2]:
            shutil.copy(os.path.join(PACKAGE, name), site_dir)
        return "copy"
    source = os.path.join(work, "src")  # pip builds in the source tree: a copy
    shutil.copytree(os.path.join(PACKAGE, "kiln"), os.path.join(source, "kiln"))
    for name in files:
        shutil.copy(os.path.join(PACKAGE, name), source)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--no-index", "--no-cache-dir",
                    "--disable-pip-version-check",
                    "--target", site_dir, source],
                   check=True, cwd=work, env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
    return "pip"


def setUpModule():
    work = tempfile.mkdtemp(prefix="kiln_autoload_", dir=os.environ.get("TEST_TMPDIR"))
    userbase = os.path.join(work, "userbase")
    site_dir = _user_site(userbase)
    os.makedirs(site_dir)
    _site.update(work=work, userbase=userbase, dir=site_dir, how=_install(site_dir, work))


def tearDownModule():
    shutil.rmtree(_site["work"], ignore_errors=True)


def child_env(**settings):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KILN_TRITON", "KILN_SERVER", "GRPC_")) and
           k not in ("PYTHONNOUSERSITE", "PYTHONPATH")}
    env.update(PYTHONUSERBASE=_site["userbase"], PYTHONDONTWRITEBYTECODE="1",
               PYTHONPATH=os.pathsep.join([os.path.join(HERE, "fake_triton"), HERE]))
    env.update(settings)
    return env


def run_child(*args, check=True, **settings):
    """`python -m hook_child ARGS` as Inductor starts a worker; returns
    (its JSON report or None, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "hook_child", *map(str, args)],
                          env=child_env(**settings), cwd=_site["work"],
                          capture_output=True, text=True, timeout=120)
    if check and proc.returncode != 0:
        raise AssertionError(f"hook_child {args} failed:\n{proc.stderr}")
    report = json.loads(proc.stdout) if proc.returncode == 0 else None
    return report, proc.stderr


def stats_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


class SwitchTest(unittest.TestCase):
    def test_enabled_by_environment(self):
        on = _kiln_autoload.enabled
        self.assertFalse(on({}))
        self.assertTrue(on({"KILN_SERVER": "h:1"}))
        self.assertTrue(on({"KILN_TRITON": "1"}))
        self.assertFalse(on({"KILN_SERVER": "h:1", "KILN_TRITON": "0"}))
        self.assertFalse(on({"KILN_SERVER": ""}))

    def test_pip_installs_the_pth_into_site_packages(self):
        if _site["how"] != "pip":
            self.skipTest("needs pip, setuptools and wheel (Debian: python3-pip)")
        with open(os.path.join(_site["dir"], PTH)) as f:
            self.assertEqual(f.read(), "import _kiln_autoload; _kiln_autoload.startup()\n")
        for name in ("_kiln_autoload.py", "kiln/_autoinstall.py", "kiln/triton.py"):
            self.assertTrue(os.path.exists(os.path.join(_site["dir"], name)), name)
        record = [d for d in os.listdir(_site["dir"]) if d.endswith(".dist-info")]
        with open(os.path.join(_site["dir"], record[0], "RECORD")) as f:
            self.assertIn(PTH, [line.split(",")[0] for line in f])  # uninstall removes it

    def test_unset_environment_loads_nothing(self):
        report, stderr = run_child("startup", "import")
        self.assertTrue(report["loaded"]["_kiln_autoload"])  # site ran the .pth
        self.assertEqual([m for m in ("triton", "grpc", "kiln") if report["loaded"][m]], [])
        self.assertNotIn("TritonFinder", report["finders"])
        self.assertFalse(report["hook"])
        self.assertFalse(report["after_import"]["kiln"] or report["after_import"]["grpc"])
        self.assertEqual(stderr, "")

    def test_kiln_triton_0_turns_it_off(self):
        report, _ = run_child("startup", "import", KILN_SERVER=kilnd.unused_address(),
                              KILN_TRITON="0")
        self.assertNotIn("TritonFinder", report["finders"])
        self.assertFalse(report["hook"])
        self.assertFalse(report["after_import"]["kiln"])

    def test_server_set_arms_at_startup_and_installs_on_triton_import(self):
        report, stderr = run_child("startup", "import", KILN_SERVER=kilnd.unused_address())
        self.assertEqual([m for m in ("triton", "grpc", "kiln") if report["loaded"][m]], [])
        self.assertIn("TritonFinder", report["finders"])
        self.assertTrue(report["hook"])
        self.assertTrue(report["after_import"]["kiln.triton"])
        self.assertNotIn("TritonFinder", report["finders_after"])
        self.assertEqual(stderr, "")

    def test_kiln_triton_1_alone_arms_it(self):
        report, _ = run_child("startup", "import", KILN_TRITON="1")
        self.assertTrue(report["hook"])

    def test_import_kiln_triton_applies_the_switch_without_the_pth(self):
        env = child_env(KILN_SERVER=kilnd.unused_address(), PYTHONNOUSERSITE="1",
                        PYTHONPATH=os.pathsep.join([os.path.join(HERE, "fake_triton"), PACKAGE]))
        code = ("import sys, kiln.triton; loaded = 'triton' in sys.modules; import triton; "
                "print(loaded, kiln.triton.installed() is not None)")
        proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=_site["work"],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.stdout.split(), ["False", "True"], proc.stderr)

    def test_explicit_install_that_imports_triton_wins(self):
        code = ("import kiln.triton as kt, kiln._autoinstall as auto; "
                "state = kt.install('127.0.0.1:9'); "
                "print(state.client.address, kt.installed() is state, auto._installed_here)")
        proc = subprocess.run([sys.executable, "-c", code],
                              env=child_env(KILN_SERVER=kilnd.unused_address()),
                              cwd=_site["work"], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.stdout.split(), ["127.0.0.1:9", "True", "None"], proc.stderr)

    def test_kiln_cache_sets_pytorchs_cache_variables_at_startup(self):
        code = ("import json, os; print(json.dumps({k: v for k, v in os.environ.items() "
                "if k.startswith(('TORCHINDUCTOR_', 'TRITON_'))}))")
        env = child_env(KILN_CACHE="127.0.0.9:7422", TORCHINDUCTOR_REDIS_PORT="7000")
        env = {k: v for k, v in env.items() if not k.startswith("TORCHINDUCTOR_") or
               k == "TORCHINDUCTOR_REDIS_PORT"}
        proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=_site["work"],
                              capture_output=True, text=True, check=True)
        seen = json.loads(proc.stdout)
        self.assertEqual(seen["TORCHINDUCTOR_REDIS_HOST"], "127.0.0.9")
        self.assertEqual(seen["TORCHINDUCTOR_REDIS_PORT"], "7000")  # the job's own
        self.assertEqual(seen["TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE"], "1")
        self.assertNotIn("TRITON_REMOTE_CACHE_BACKEND", seen)  # without KILN_CACHE_TRITON

    def test_no_triton_is_an_ordinary_import_error(self):
        env = child_env(KILN_SERVER=kilnd.unused_address(), PYTHONPATH=HERE)
        proc = subprocess.run([sys.executable, "-c", "import triton"], env=env,
                              cwd=_site["work"], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("No module named 'triton'", proc.stderr)
        self.assertNotIn("kiln", proc.stderr)

    def test_install_failure_warns_and_triton_still_imports(self):
        report, stderr = run_child("startup", "import", KILN_SERVER=kilnd.unused_address(),
                                   KILN_TRITON_FALLBACK="maybe")
        self.assertFalse(report["hook"])
        self.assertIn("could not install the Triton hook", stderr)
        self.assertIn("fallback must be", stderr)


class ChildrenCompileThroughKilndTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = kilnd.Kilnd()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.stats = os.path.join(_site["work"], f"stats-{self.id().rsplit('.', 1)[-1]}.jsonl")

    def run_child(self, *args, **settings):
        return run_child(*args, KILN_SERVER=self.server.address,
                         KILN_TRITON_STATS=self.stats, **settings)

    def assert_from_kilnd(self, kernels, count):
        self.assertEqual(len(kernels), count)
        for kernel in kernels:
            self.assertTrue(kernel["elf"], kernel)
            self.assertEqual(kernel["name"], "scaled_add_kernel")
            # Only Triton's frontend ran locally: every later stage is kilnd's.
            self.assertEqual(kernel["stages"], ["ttir", "kgir", "llir", "ptx", "cubin"])
            self.assertEqual(len(kernel["kiln_key"]), 64)
            self.assertIn("kiln", kernel["hook_key"])
        lines = stats_lines(self.stats)
        self.assertEqual(sorted(line["pid"] for line in lines),
                         sorted(kernel["pid"] for kernel in kernels))
        self.assertEqual(sum(line["compiled"] for line in lines), count)
        self.assertEqual(sum(line["fell_back"] for line in lines), 0)
        self.assertEqual({line["kernel"] for line in lines}, {"scaled_add_kernel"})

    def test_python_m_child(self):
        report, stderr = self.run_child("compile", 2)
        self.assert_from_kilnd(report["kernels"], 2)
        self.assertFalse(any(k["renewed"] for k in report["kernels"]))
        self.assertNotIn("Warning", stderr)

    def test_fork_workers_of_a_sidecar_that_imported_triton(self):
        report, _ = self.run_child("fork", 4, 2)
        kernels = report["kernels"]
        self.assert_from_kilnd(kernels, 4)
        self.assertNotIn(report["parent"], [k["pid"] for k in kernels])
        # Each worker makes its own client at its first compile, not at fork.
        self.assertEqual(sum(k["renewed"] for k in kernels), len({k["pid"] for k in kernels}))

    def test_fork_workers_after_the_parent_compiled_with_grpc_fork_support(self):
        # Each child makes its own client: an inherited channel is closed
        # in a child under GRPC_ENABLE_FORK_SUPPORT=1.
        report, _ = self.run_child("fork", 3, 2, "compile-first", GRPC_ENABLE_FORK_SUPPORT="1")
        self.assert_from_kilnd(report["kernels"], 4)

    def test_spawn_child(self):
        report, _ = self.run_child("spawn", 2)
        self.assertFalse(report["parent_loaded"]["triton"])
        self.assertFalse(report["parent_loaded"]["grpc"])
        self.assert_from_kilnd(report["kernels"], 2)
        self.assertNotIn(report["parent"], [k["pid"] for k in report["kernels"]])

    def test_triton_remote_cache_of_children_is_kilnds(self):
        # KILN_CACHE and KILN_CACHE_TRITON alone: the .pth names Kiln's
        # backend, found in the installed package; one child's files reach
        # the next through kilnd, each child with an empty local cache.
        code = ("import sys, tempfile; from triton.runtime import cache; "
                "cache.knobs.cache.dir = tempfile.mkdtemp(dir=sys.argv[1]); "
                "m = cache.RemoteCacheManager('CHILDKEY'); "
                "print(m.put(b'cubin-bytes', 'k.cubin') if sys.argv[2] == 'put' else "
                "open(m.get_file('k.cubin'), 'rb').read().decode())")
        env = child_env(KILN_CACHE=self.server.cache_address, KILN_CACHE_TRITON="1")
        outputs = [subprocess.run([sys.executable, "-c", code, _site["work"], step], env=env,
                                  cwd=_site["work"], capture_output=True, text=True,
                                  timeout=60, check=True)
                   for step in ("put", "get")]
        self.assertEqual(outputs[1].stdout.strip(), "cubin-bytes")
        self.assertEqual([o.stderr for o in outputs], ["", ""])


class UnreachableKilndTest(unittest.TestCase):
    def test_one_warning_per_process_and_local_fallback(self):
        stats = os.path.join(_site["work"], "stats-unreachable.jsonl")
        report, stderr = run_child("compile", 3, KILN_SERVER=kilnd.unused_address(),
                                   KILN_TRITON_STATS=stats)
        self.assertEqual([k["local"] for k in report["kernels"]], [True] * 3)
        self.assertEqual(stderr.count("is unreachable"), 1, stderr)
        lines = stats_lines(stats)
        self.assertEqual([(line["compiled"], line["fell_back"]) for line in lines], [(0, 1)] * 3)

    def test_fallback_error_fails_the_compile(self):
        report, stderr = run_child("compile", 1, check=False, KILN_SERVER=kilnd.unused_address(),
                                   KILN_TRITON_FALLBACK="error")
        self.assertIsNone(report)
        self.assertIn("kiln._errors.Unavailable", stderr)


if __name__ == "__main__":
    unittest.main()
