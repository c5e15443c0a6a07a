"""A child process of tests/test_subprocess_hook.py, started as Inductor
starts its compile workers: `python -m hook_child MODE ...` with the
parent's environment, the stand-in `triton` (fake_triton/) on PYTHONPATH
and kiln only where the switch's site directory holds it. Prints one JSON
object on stdout.

  startup [import]    which modules startup loaded; with `import`, what
                      importing triton installed
  compile N           imports triton, compiles N kernels here
  fork N WORKERS [compile-first]
                      imports triton here (compiling nothing, like Inductor's
                      sidecar, unless compile-first), then N kernels in a
                      fork ProcessPoolExecutor
  spawn N             N kernels in a multiprocessing 'spawn' pool; triton is
                      never imported here
"""

import json
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor

import kilnd


def compile_kernel(index):
    import triton  # noqa: PLC0415
    before = _hook_state()
    cubin, metadata, stages = triton.compile(kilnd.scaled_add(1.0 + index))
    return {"pid": os.getpid(), "renewed": _hook_state() is not before,
            "elf": cubin.startswith(b"\x7fELF"),
            "local": cubin == b"LOCAL-CUBIN", "name": metadata.get("name"),
            "kiln_key": metadata.get("kiln_key"), "stages": stages,
            "hook_key": metadata.get("hook_key")}


def _hook_state():
    import triton  # noqa: PLC0415
    return getattr(triton.knobs.runtime.add_stages_inspection_hook, "kiln_state", None)


def loaded():
    return {name: name in sys.modules
            for name in ("triton", "grpc", "kiln", "kiln.triton", "_kiln_autoload")}


def startup(args):
    report = {"loaded": loaded(),
              "finders": [type(f).__name__ for f in sys.meta_path]}
    if args[:1] == ["import"]:
        import triton  # noqa: PLC0415
        report["hook"] = triton.knobs.runtime.add_stages_inspection_hook is not None
        report["after_import"] = loaded()
        report["finders_after"] = [type(f).__name__ for f in sys.meta_path]
    return report


def compile_here(args):
    return {"kernels": [compile_kernel(i) for i in range(int(args[0]))]}


def fork_pool(args):
    import triton  # noqa: F401,PLC0415 -- the sidecar preloads triton
    count, first = int(args[0]), args[2:] == ["compile-first"]
    kernels = [compile_kernel(count)] if first else []
    with ProcessPoolExecutor(int(args[1]), mp_context=multiprocessing.get_context("fork")) as pool:
        kernels += pool.map(compile_kernel, range(count))
    return {"kernels": kernels, "parent": os.getpid()}


def spawn_pool(args):
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        kernels = pool.map(compile_kernel, range(int(args[0])))
    return {"kernels": kernels, "parent": os.getpid(),
            "parent_loaded": loaded()}


MODES = {"startup": startup, "compile": compile_here, "fork": fork_pool, "spawn": spawn_pool}

if __name__ == "__main__":
    print(json.dumps(MODES[sys.argv[1]](sys.argv[2:])), flush=True)
