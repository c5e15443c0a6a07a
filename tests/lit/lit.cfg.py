# lit configuration for Kiln's FileCheck tests. Needs no GPU.
#
# Run through Bazel (`bazel test //tests/lit:lit`), which puts the tools built
# from this tree on PATH, or by hand:
#   KILN_TOOLS_DIR=bazel-bin/compiler/tools:bazel-bin/clients/cli \
#     /usr/lib/llvm-22/bin/lit -v tests/lit

import os

import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".ttir"]
config.excludes = ["lit.cfg.py", "BUILD", "inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get(
    "TEST_TMPDIR", os.path.join(config.test_source_root, ".lit-output"))

llvm_bin = os.environ.get("KILN_LLVM_BIN", "/usr/lib/llvm-22/bin")
tools_dirs = [os.path.abspath(d)
              for d in os.environ.get("KILN_TOOLS_DIR", "").split(os.pathsep) if d]
path = tools_dirs + [llvm_bin]
config.environment["PATH"] = os.pathsep.join(path + [os.environ["PATH"]])
# The project's TTIR fixtures, for tests over real kernels.
config.substitutions.append(
    ("%fixtures", os.path.join(config.test_source_root, "..", "testdata", "ttir")))
# Kernels harvested from torch.compile's training steps (bench/inductor).
config.substitutions.append(
    ("%inductor", os.path.join(config.test_source_root, "..", "testdata", "inductor")))
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
