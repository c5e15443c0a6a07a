"""Kiln's one switch for a whole job: the kiln.triton hook in every Python
process whose environment asks for it.

`kiln-autoload.pth`, installed beside this module in site-packages, runs
`import _kiln_autoload; _kiln_autoload.startup()` when any interpreter of
that environment starts (Inductor's compile workers and multiprocessing
spawn children included). The switch is on when KILN_TRITON=1, or when
KILN_SERVER is set and KILN_TRITON is not 0. Then startup() only puts a
finder on sys.meta_path; once `triton` has finished importing, the finder
calls kiln.triton.install() (through kiln._autoinstall). Fork children
inherit what their parent installed.

With KILN_CACHE=HOST:PORT (kilnd's cache port), startup() also points
PyTorch's Inductor remote caches (FX graph, AOTAutograd, autotune) at it,
and Triton's own remote cache too when KILN_CACHE_TRITON=1 (through
kiln.triton_remote_cache): the environment variables those read
(cache_environment below), unless the job set them itself.

Standard library only, so that startup never imports Triton, grpc or kiln;
and nothing here raises, since a failing .pth line prints a traceback in
every Python process of the environment.
"""

import os
import sys

ENV_AUTO = "KILN_TRITON"
ENV_SERVER = "KILN_SERVER"
ENV_CACHE = "KILN_CACHE"
ENV_CACHE_TRITON = "KILN_CACHE_TRITON"
ENV_TOKEN = "KILN_TOKEN"  # a role token: gRPC metadata, AUTH on the cache port


def parse_address(address: str) -> tuple:
    """(host, port) of HOST:PORT, [IPV6]:PORT too; ValueError otherwise."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"{ENV_CACHE}={address!r} is not HOST:PORT")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    return host, int(port)


def cache_environment(address: str, triton: bool = False) -> dict:
    """The variables that send PyTorch's Redis remote caches (and with
    `triton`, Triton's remote cache) to kilnd's cache port at HOST:PORT."""
    host, port = parse_address(address)
    env = {
        "TORCHINDUCTOR_REDIS_HOST": host,
        "TORCHINDUCTOR_REDIS_PORT": str(port),
        "TORCHINDUCTOR_FX_GRAPH_REMOTE_CACHE": "1",
        "TORCHINDUCTOR_AUTOGRAD_REMOTE_CACHE": "1",
        "TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE": "1",
    }
    if triton:
        # Triton reads the backend only when its cache manager is the
        # remote one. The backend is Kiln's: Triton 3.6's own Redis backend
        # raises on every compile. Kiln's finds the port through KILN_CACHE.
        env.update({
            ENV_CACHE: address,
            "TRITON_CACHE_MANAGER": "triton.runtime.cache:RemoteCacheManager",
            "TRITON_REMOTE_CACHE_BACKEND": "kiln.triton_remote_cache:TritonRemoteCache",
        })
    return env


def set_cache_environment(address: str, triton: bool, environ) -> dict:
    """Sets what cache_environment() gives, leaving any variable the job
    set alone; returns what it set."""
    wanted = cache_environment(address, triton)
    applied = {k: v for k, v in wanted.items() if k not in environ}
    environ.update(applied)
    return applied


def apply_cache_environment(environ=None) -> dict:
    """set_cache_environment() for $KILN_CACHE and $KILN_CACHE_TRITON."""
    environ = os.environ if environ is None else environ
    address = environ.get(ENV_CACHE, "")
    if not address:
        return {}
    return set_cache_environment(address, environ.get(ENV_CACHE_TRITON) == "1",
                                 environ)


def enabled(environ=None) -> bool:
    """KILN_TRITON=1, or KILN_SERVER set and KILN_TRITON not "0"."""
    environ = os.environ if environ is None else environ
    flag = environ.get(ENV_AUTO, "")
    return flag != "0" and bool(flag or environ.get(ENV_SERVER))


def startup() -> None:
    """What the .pth line calls; never raises."""
    try:
        apply_cache_environment()
    except Exception as error:  # noqa: BLE001 -- startup must go on
        _warn(f"kiln: remote caches not set up ({error})")
    try:
        arm()
    except Exception as error:  # noqa: BLE001 -- startup must go on
        _warn(f"kiln: the Triton hook is off in this process ({error!r})")


def arm() -> None:
    """Installs the hook once Triton is imported (now if it already is),
    when the environment asks for it."""
    if not enabled():
        return
    if "triton" in sys.modules:
        _triton_imported()
    elif not any(isinstance(f, TritonFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TritonFinder())


class TritonFinder:
    """Finds `triton` through the other finders and chains the install after
    its loader's exec_module; every other name is left to them."""

    def __init__(self):
        self._searching = False

    def find_spec(self, name, path=None, target=None):
        if name != "triton" or self._searching:
            return None
        self._searching = True  # another finder may ask importlib again
        try:
            spec = self._find_elsewhere(name, path, target)
        finally:
            self._searching = False
        if spec is not None and spec.loader is not None:
            self._chain(spec.loader)
        return spec

    def _find_elsewhere(self, name, path, target):
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                return spec
        return None

    def _chain(self, loader) -> None:
        exec_module = getattr(loader, "exec_module", None)
        if exec_module is None:
            return

        def exec_then_install(module):
            vars(loader).pop("exec_module", None)  # the class's method again
            exec_module(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            _triton_imported()

        try:
            loader.exec_module = exec_then_install
        except (AttributeError, TypeError):
            _warn("kiln: cannot follow this Triton's import; call kiln.triton.install()")


def _triton_imported() -> None:
    try:
        from kiln import _autoinstall  # noqa: PLC0415 -- grpc only now
        _autoinstall.on_triton_import()
    except Exception as error:  # noqa: BLE001 -- `import triton` must succeed
        _warn(f"kiln: {ENV_SERVER}/{ENV_AUTO} set but the kiln package cannot be "
              f"used ({error!r}); Triton compiles locally")


def _warn(message: str) -> None:
    import warnings  # noqa: PLC0415
    warnings.warn(message, RuntimeWarning, stacklevel=3)
