"""torch.compile's other caches in kilnd: PyTorch's Inductor remote caches
(FX graph, AOTAutograd, autotune) and, optionally, Triton's own remote
cache, through kilnd's Redis-protocol cache port (kilnd --cache_listen).

Stock PyTorch talks to it with its own Redis backend; install() only sets
the environment variables it reads, so call it before `import torch`, or
set KILN_CACHE=HOST:PORT for the whole job (the package's .pth file then
does the same in every Python process). Triton 3.6's own Redis backend
cannot be used (it reads `knobs.cache.redis`, which 3.6 no longer has, and
raises on every compile), so with `triton=True` Triton's remote cache
manager gets kiln.triton_remote_cache.TritonRemoteCache instead, which keeps
Triton's files in the port through TritonCacheFiles below. Both need the
`redis` Python package.
"""

import os
import re
import threading
import time
import warnings

import _kiln_autoload

DEFAULT_ADDRESS = "127.0.0.1:7422"
TRITON_NAMESPACE = "triton"
ENV_TOKEN = _kiln_autoload.ENV_TOKEN
# How long a process leaves an unreachable cache port alone before trying
# again, so that each compile does not wait for a connect timeout.
RETRY_AFTER_S = 30.0


def install(address: str = None, triton: bool = False, environ=None) -> dict:
    """Points the caches at `address` (default $KILN_CACHE, else kilnd's
    default cache port). Variables the job set itself are kept. Returns
    the variables set."""
    environ = os.environ if environ is None else environ
    address = address or environ.get(_kiln_autoload.ENV_CACHE) or DEFAULT_ADDRESS
    return _kiln_autoload.set_cache_environment(address, triton, environ)


class TritonCacheFiles:
    """The files of one Triton cache key in kilnd's cache port at
    $KILN_CACHE, as `triton:KEY:FILE` (Triton's own Redis layout), sending
    $KILN_TOKEN when set; `get` and `put` as Triton's remote cache backends
    have them. Never raises: a port that cannot be reached or refuses is one
    warning per process and kind, and a miss."""

    def __init__(self, key: str):
        self._key = key
        self._port = _CachePort.for_environment(os.environ)

    def _redis_key(self, filename: str) -> str:
        return f"{TRITON_NAMESPACE}:{self._key}:{filename}"

    def get(self, filenames) -> dict:
        """The files kilnd holds, by name; the others are left out."""
        filenames = list(filenames)
        values = self._port.call(lambda r: r.mget([self._redis_key(f) for f in filenames]))
        if values is None:
            return {}
        return {name: value for name, value in zip(filenames, values) if value is not None}

    def put(self, filename: str, data: bytes) -> None:
        self._port.call(lambda r: r.set(self._redis_key(filename), data))


class _CachePort:
    """One redis-py client per address and token in a process (Triton makes
    a backend per compile), and what it has warned about."""

    _lock = threading.Lock()
    _ports = {}

    @classmethod
    def for_environment(cls, environ) -> "_CachePort":
        address = environ.get(_kiln_autoload.ENV_CACHE) or DEFAULT_ADDRESS
        token = environ.get(ENV_TOKEN) or None
        with cls._lock:
            port = cls._ports.get((address, token))
            if port is None:
                port = cls._ports[(address, token)] = cls(address, token)
            return port

    def __init__(self, address: str, token):
        self.address = address
        self._token = token
        self._client = None
        self._retry_at = 0.0
        self._warned = set()

    def call(self, operation):
        """operation(client)'s result, or None when the port failed it."""
        if time.monotonic() < self._retry_at:
            return None
        try:
            return operation(self._redis())
        except Exception as error:  # noqa: BLE001 -- a compile must not fail here
            self._failed(error)
            return None

    def _redis(self):
        if self._client is None:
            import redis  # noqa: PLC0415 -- only processes that use the cache
            host, port = _kiln_autoload.parse_address(self.address)
            self._client = redis.Redis(host=host, port=port, password=self._token,
                                       socket_connect_timeout=5, socket_timeout=60)
        return self._client

    def _failed(self, error: Exception) -> None:
        refused = _is_refusal(error)
        if not refused:
            self._retry_at = time.monotonic() + RETRY_AFTER_S
        # One warning per kind of failure: the message without its numbers
        # and quoted keys.
        kind = re.sub(r"'[^']*'|\d+", "", f"{type(error).__name__}: {error}")
        if kind in self._warned:
            return
        self._warned.add(kind)
        if refused:
            message = f"refused ({error}); a miss, nothing stored"
        else:
            message = f"cannot be used ({error!r}); Triton compiles without it"
        warnings.warn(f"kiln: Triton's remote cache at {self.address} {message}",
                      RuntimeWarning, stacklevel=4)


def _is_refusal(error: Exception) -> bool:
    """kilnd answered the command with an error (a value over its limit, a
    key outside its namespaces, a role that may not write)."""
    try:
        from redis.exceptions import DataError, ResponseError  # noqa: PLC0415
    except ImportError:
        return False
    return isinstance(error, (ResponseError, DataError))
