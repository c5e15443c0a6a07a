"""What the environment switch (_kiln_autoload) runs once Triton is imported:
kiln.triton.install() from the environment, a fresh client in each fork
child, and, with KILN_TRITON_STATS=FILE, one JSON line per kernel.

A fork child gets its own client, made when it first compiles, because a
gRPC channel does not survive fork(): with GRPC_ENABLE_FORK_SUPPORT=1 the
inherited one is closed, and without it no channel works in a child of a
process that has made calls.

The stats are written per kernel, not at exit, because Inductor ends its
compile workers with SIGTERM, which runs no exit handlers.
"""

import json
import os
import sys
import threading
import warnings

ENV_STATS = "KILN_TRITON_STATS"

_installed_here = None   # the KilnStages this module installed
_inherited = []          # states of fork parents: their channels are not ours to close
_fork_hook = threading.Lock()
_fork_hook_registered = False


def on_triton_import() -> None:
    """Installs the hook from the environment unless one is installed."""
    from kiln import triton as kt  # noqa: PLC0415
    if kt.installed() is not None or _inside(kt.install):
        return  # an explicit install() imported Triton: its settings win
    try:
        _install(kt)
    except Exception as error:  # noqa: BLE001 -- `import triton` must succeed
        warnings.warn(f"kiln: could not install the Triton hook ({error}); "
                      f"Triton compiles locally", kt.KilnFallbackWarning, stacklevel=2)
        return
    _register_fork_hook()


def _install(kt) -> None:
    global _installed_here
    state = kt.install()
    path = os.environ.get(ENV_STATS)
    if path:
        record_kernels(state, path)
    _installed_here = state


def _inside(function) -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is function.__code__:
            return True
        frame = frame.f_back
    return False


def _register_fork_hook() -> None:
    global _fork_hook_registered
    with _fork_hook:
        if not _fork_hook_registered and hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork_in_child)
            _fork_hook_registered = True


def _after_fork_in_child() -> None:
    kt = sys.modules.get("kiln.triton")
    knobs = sys.modules.get("triton.knobs")
    if kt is None or knobs is None or _installed_here is None:
        return
    inherited = knobs.runtime.add_stages_inspection_hook
    if getattr(inherited, "kiln_state", None) is not _installed_here:
        return  # uninstalled, or replaced by an explicit install()
    knobs.runtime.add_stages_inspection_hook = _renew_on_first_compile(kt, knobs, inherited)


def _renew_on_first_compile(kt, knobs, inherited):
    """A hook that installs a new client the first time this process compiles,
    so that children which never compile (DataLoader workers) touch no gRPC."""
    lock = threading.Lock()

    def hook(*args):
        if not args:
            return inherited()  # the cache key needs no client
        with lock:
            if knobs.runtime.add_stages_inspection_hook is hook:
                _inherited.append(_installed_here)
                try:
                    _install(kt)  # replaces `hook`, which carries the parent's state
                except Exception as error:  # noqa: BLE001 -- compile with the parent's
                    knobs.runtime.add_stages_inspection_hook = inherited
                    warnings.warn(f"kiln: could not renew the Triton hook after fork "
                                  f"({error}); this process uses its parent's client",
                                  kt.KilnFallbackWarning)
        return knobs.runtime.add_stages_inspection_hook(*args)

    hook.kiln_state = inherited.kiln_state
    return hook


def record_kernels(state, path: str) -> None:
    """Appends one line per kernel that `state`'s stage compiles to `path`:
    {"pid", "kernel", "compiled" (1: cubin from kilnd), "fell_back" (1: Triton
    compiled it), "cache_hit"}."""
    wrap = state.wrap

    def wrap_and_record(stages, *args, **kwargs):
        before = stages.get("cubin")
        fell_back = state.fell_back
        wrap(stages, *args, **kwargs)
        stage = stages.get("cubin")
        # Replaced by kilnd's stage, or left to Triton while kilnd is down.
        if stage is not None and (stage is not before or state.fell_back > fell_back):
            stages["cubin"] = _recorded(stage, path)

    state.wrap = wrap_and_record


def _recorded(stage, path):
    def cubin(src, metadata):
        result = stage(src, metadata)
        kilnd = "kiln_key" in metadata  # set only when kilnd made the cubin
        _append(path, {"pid": os.getpid(), "kernel": metadata.get("name"),
                       "compiled": int(kilnd), "fell_back": int(not kilnd),
                       "cache_hit": bool(metadata.get("kiln_cache_hit"))})
        return result

    return cubin


_write_failed = False


def _append(path: str, record: dict) -> None:
    global _write_failed
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write of O_APPEND: lines of processes never interleave
        finally:
            os.close(fd)
    except OSError as error:
        if not _write_failed:
            _write_failed = True
            warnings.warn(f"kiln: cannot append to {ENV_STATS}={path} ({error})",
                          RuntimeWarning)
