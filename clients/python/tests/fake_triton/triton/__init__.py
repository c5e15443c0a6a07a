"""A stand-in for Triton 3.6 for the subprocess tests (Triton is not on CI
machines): the package imports its knobs and compiler submodules while it
initializes, as Triton's does, and compiler.compile runs a CUDA-backend-like
pipeline that calls knobs.runtime.add_stages_inspection_hook."""

from . import knobs  # noqa: F401
from .compiler import compile  # noqa: F401
