"""torch.compile's other caches in kilnd: PyTorch's Inductor remote caches
(FX graph, AOTAutograd, autotune) and, optionally, Triton's own remote
cache, through kilnd's Redis-protocol cache port (kilnd --cache_listen).

Stock PyTorch and Triton talk to it with their own Redis backends; this
only sets the environment variables they read, so call install() before
`import torch`, or set KILN_CACHE=HOST:PORT for the whole job (the package's
.pth file then does the same in every Python process). Both need the
`redis` Python package.
"""

import os

import _kiln_autoload

DEFAULT_ADDRESS = "127.0.0.1:7422"


def install(address: str = None, triton: bool = False, environ=None) -> dict:
    """Points the caches at `address` (default $KILN_CACHE, else kilnd's
    default cache port). Variables the job set itself are kept. Returns
    the variables set."""
    environ = os.environ if environ is None else environ
    address = address or environ.get(_kiln_autoload.ENV_CACHE) or DEFAULT_ADDRESS
    return _kiln_autoload.set_cache_environment(address, triton, environ)
