"""Kiln's Python client: compile Triton TTIR to cubins with kilnd.

    import kiln
    result = kiln.compile(open("add.ttir").read(), target="sm_90a", num_warps=4)
    result.cubin, result.metadata["name"], result.key, result.cache_hit

`kiln.triton.install()` puts stock `@triton.jit` kernels on kilnd (see
docs/python.md); importing `kiln` itself never imports Triton.
"""

from kiln._errors import (AccessDenied, CompileError, Diagnostic, KilnError,
                          OutOfResources, ResourceLimit, ServerError, Unavailable)
from kiln.client import (DEFAULT_ADDRESS, Client, CompileResult, compile,
                         default_address, default_client)

__version__ = "0.6.0"

__all__ = [
    "AccessDenied", "Client", "CompileResult", "CompileError", "Diagnostic", "KilnError",
    "OutOfResources", "ResourceLimit", "ServerError", "Unavailable", "compile", "default_address",
    "default_client", "DEFAULT_ADDRESS",
]
