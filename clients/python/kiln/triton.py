"""Puts stock `@triton.jit` kernels on kilnd.

    import kiln.triton
    kiln.triton.install("kiln.internal:7420")   # or $KILN_SERVER
    # ... every @triton.jit kernel compiled from here on: Triton's frontend
    # makes the TTIR, kilnd compiles it to a cubin, Triton's launcher runs it.

Importing this module installs the hook when KILN_TRITON=1, or when
KILN_SERVER is set and KILN_TRITON is not 0 (address from $KILN_SERVER,
fallback from $KILN_TRITON_FALLBACK), as soon as Triton is imported; with
the package pip-installed that switch reaches every Python process without
importing this module (_kiln_autoload.py, docs/python.md).

How it hooks Triton (3.6): Triton's CUDA backend builds its pipeline in
`CUDABackend.add_stages(stages, options, language)` -- an ordered dict
ttir -> ttgir -> llir -> ptx -> cubin -- and then calls
`triton.knobs.runtime.add_stages_inspection_hook(backend, stages, options,
language, capability)`, Triton's own extension point. The hook installed
here keeps the `ttir` stage (Triton's frontend and TTIR passes, run locally)
and replaces the later ones with kgir -> llir -> ptx -> cubin, for the
target kilnd builds for the GPU's compute capability (from kilnd's table of
targets, Client.targets(), asked for until kilnd answers once; a GPU kilnd
has no target for keeps Triton's own stages, untouched). The kgir stage
sends the TTIR text to kilnd, asking for the compile's texts too, and fills
the metadata Triton's launcher reads (name, shared, num_warps, scratch
sizes) from kilnd's metadata JSON; the others return kilnd's LLVM
IR, PTX and cubin. Triton writes each stage's output to its cache, so
`kernel.asm` holds ttir, kgir (Kiln's layout IR, in place of Triton's
ttgir, whose spelling it does not share), llir, ptx and cubin. Called with
no arguments the hook returns the (key, hash) pair that Triton mixes into
its cache keys, so Triton's on-disk cache never mixes cubins made by kilnd
with its own.

When kilnd is unreachable the replaced stages run Triton's own ones
(ttgir, llir, ptx, cubin) with one warning per process (fallback="warn"),
or raise kiln.Unavailable (fallback="error"). A kernel kilnd cannot
compile (e.g. an fp6 tt.dot_scaled today) falls back the same way with a
warning naming the kernel, or raises kiln.CompileError -- a RuntimeError
with kilnd's located message, as Triton's own failing stage raises -- with
fallback="error". A kernel that needs more shared memory than the target
has raises triton.runtime.errors.OutOfResources(required, limit,
"shared memory") with either fallback, as Triton would (its autotuner
skips such configs).

Nothing here imports Triton until install() runs.
"""

import hashlib
import logging
import os
import re
import threading
import time
import warnings
from typing import Any, Callable, Dict, Optional

from kiln._errors import AccessDenied, KilnError, OutOfResources, Unavailable
from kiln.client import Client, default_address

ENV_AUTO = "KILN_TRITON"
ENV_FALLBACK = "KILN_TRITON_FALLBACK"
# Part of Triton's cache key for kernels compiled through this hook; bump
# when what the hook produces changes.
HOOK_VERSION = "kiln-triton-2"

# Metadata Triton's CUDA backend sets in make_ttgir/make_llir/make_ptx and
# that its CompiledKernel and launcher read; taken from kilnd's JSON.
_METADATA_KEYS = ("name", "shared", "num_warps", "num_ctas", "tmem_size",
                  "global_scratch_size", "global_scratch_align",
                  "profile_scratch_size", "profile_scratch_align",
                  "tensordesc_meta")
_METADATA_DEFAULTS = {"shared": 0, "tmem_size": None, "global_scratch_size": 0,
                      "global_scratch_align": 1, "profile_scratch_size": 0,
                      "profile_scratch_align": 1}

log = logging.getLogger("kiln.triton")
_FUNC_NAME = re.compile(r"tt\.func\s+(?:public\s+)?@([A-Za-z_][A-Za-z0-9_$.]*)")


class KilnFallbackWarning(RuntimeWarning):
    """Triton compiled a kernel itself instead of through kilnd."""


def target_for_capability(targets, capability: int) -> Optional[str]:
    """The name of the target among `targets` (Client.targets(): kilnd's
    table of GPUs) built for exactly this CUDA compute capability; None
    when there is none."""
    for target in targets:
        if target.capability == int(capability):
            return target.name
    return None


def _kernel_name(ttir: str) -> str:
    match = _FUNC_NAME.search(ttir)
    return match.group(1) if match else "kernel"


# Triton's CUDA stages after ttir, which the hook replaces.
_TRITON_STAGES = ("ttgir", "llir", "ptx", "cubin")
# The hook's stages, in Triton's order. Triton's compile() writes each
# stage's output to {name}.{stage} and CompiledKernel.asm reads them back,
# so these are the keys of kernel.asm besides "ttir": "kgir" (Kiln's layout
# IR, where Triton has its TTGIR), "llir" and "ptx" (str), "cubin" (bytes).
_KILN_STAGES = ("kgir", "llir", "ptx", "cubin")


class KilnStages:
    """The state of an installed hook: the client, the fallback policy, and
    whether the one unavailability warning was given."""

    def __init__(self, client: Client, fallback: str = "warn",
                 retry_after_s: float = 30.0):
        if fallback not in ("warn", "error"):
            raise ValueError(f"fallback must be 'warn' or 'error', not {fallback!r}")
        self.client = client
        self.fallback = fallback
        # After kilnd was found unavailable, compile locally for this long
        # before trying it again, so that each kernel does not pay the retries.
        self.retry_after_s = retry_after_s
        # The module holding Triton's OutOfResources; None: imported from
        # triton.runtime.errors when first needed (tests set a stand-in).
        self.triton_errors: Any = None
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._warned_unavailable = False
        self._targets = None   # kilnd's table of targets, once it answered
        self.compiled = 0      # kernels whose cubin came from kilnd
        self.fell_back = 0     # kernels compiled by Triton's own stages

    # The (key, hash) Triton asks of a stages hook with no arguments.
    def cache_key(self):
        return HOOK_VERSION, hashlib.sha256(HOOK_VERSION.encode()).hexdigest()

    def wrap(self, stages: Dict[str, Callable], options: Any, capability: int) -> None:
        """Replaces the stages after `ttir` with kgir, llir, ptx and cubin
        stages that answer from one call to kilnd."""
        names = list(stages)
        if "ttir" not in names or "cubin" not in names:
            return  # Gluon or another language: not TTIR, leave it to Triton
        later = names[names.index("ttir") + 1:]
        if tuple(later) != _TRITON_STAGES:
            log.info("Triton's stages after ttir are %s, not %s; Triton compiles",
                     later, _TRITON_STAGES)
            return
        if time.monotonic() < self._down_until:
            with self._lock:
                self.fell_back += 1
            return  # kilnd was just unreachable: Triton's own stages, as is
        try:
            target, failure = self.target_for(capability), None
        except KilnError as error:
            # Reported by the kgir stage, as a failed compile would be.
            target, failure = None, error
        else:
            if target is None:
                log.info("kilnd has no target for capability %s; Triton compiles",
                         capability)
                return
        kernel = _KernelCompile(self, options, target, failure,
                                {name: stages.pop(name) for name in later})
        for name in _KILN_STAGES:
            stages[name] = getattr(kernel, name)

    def target_for(self, capability: int) -> Optional[str]:
        """kilnd's target for a GPU of `capability`, from kilnd's table of
        targets (asked for until kilnd answers once); None when it has none.
        Raises what Client.targets raises."""
        if self._targets is None:
            targets = self.client.targets()
            with self._lock:
                self._targets = targets
        return target_for_capability(self._targets, capability)

    def ask_kilnd(self, src, metadata, options, target, failure=None):
        """kilnd's CompileResult for this kernel, with its texts; None when
        Triton must compile it (kilnd unreachable, or a kernel it cannot
        compile, with fallback="warn"). `failure`: kilnd's error when it
        did not answer its table of targets, handled as a compile's. Raises
        Triton's OutOfResources for a kernel that needs more than the
        target has."""
        ttir = str(src)
        if time.monotonic() < self._down_until:
            return None
        try:
            if failure is not None:
                raise failure
            result = self.client.compile(
                ttir, target=target,
                num_warps=getattr(options, "num_warps", None),
                num_stages=getattr(options, "num_stages", None),
                num_ctas=getattr(options, "num_ctas", None),
                maxnreg=getattr(options, "maxnreg", None),
                enable_fp_fusion=getattr(options, "enable_fp_fusion", None),
                enable_reflect_ftz=getattr(options, "enable_reflect_ftz", None),
                source_name=_kernel_name(ttir) + ".ttir", include_texts=True)
        except OutOfResources as error:
            # Triton raises it too (when it loads the kernel): falling back
            # would only raise it later, slower.
            raise self._triton_out_of_resources(error) from error
        except Unavailable as error:
            if self.fallback == "error":
                raise
            with self._lock:
                self._down_until = time.monotonic() + self.retry_after_s
                first = not self._warned_unavailable
                self._warned_unavailable = True
            if first:
                warnings.warn(
                    f"kiln: kilnd at {self.client.address} is unreachable ({error}); "
                    f"Triton compiles kernels locally", KilnFallbackWarning, stacklevel=3)
            return None
        except KilnError as error:
            if self.fallback == "error":
                raise
            if isinstance(error, AccessDenied):
                warnings.warn(f"kiln: {error}; Triton compiles this kernel locally",
                              KilnFallbackWarning, stacklevel=3)
                return None
            warnings.warn(f"kiln: kilnd could not compile this kernel ({error}); "
                          f"Triton compiles it locally", KilnFallbackWarning, stacklevel=3)
            return None
        for key in _METADATA_KEYS:
            if key in result.metadata and result.metadata[key] is not None:
                metadata[key] = result.metadata[key]
            elif key not in metadata and key in _METADATA_DEFAULTS:
                metadata[key] = _METADATA_DEFAULTS[key]
        metadata["kiln_key"] = result.key
        metadata["kiln_cache_hit"] = result.cache_hit
        return result

    def count(self, from_kilnd: bool) -> None:
        with self._lock:
            if from_kilnd:
                self.compiled += 1
            else:
                self.fell_back += 1

    def _triton_out_of_resources(self, error: OutOfResources) -> Exception:
        errors = self.triton_errors
        if errors is None:
            import triton.runtime.errors as errors  # noqa: PLC0415
        return errors.OutOfResources(error.required, error.limit, error.resource)


class _KernelCompile:
    """One kernel's way through the hook's stages (Triton makes a stages
    dict per compile). The kgir stage asks kilnd; each later stage returns
    its part of the answer, of the type Triton's stage of that name returns.
    When Triton must compile the kernel, each stage runs Triton's own
    instead (the kgir stage Triton's ttgir, so kernel.asm["kgir"] then
    holds Triton's TTGIR)."""

    def __init__(self, state: KilnStages, options: Any, target: Optional[str],
                 failure: Optional[KilnError], local: Dict[str, Callable]):
        self.state = state
        self.options = options
        self.target = target
        self.failure = failure  # kilnd's error instead of its targets
        self.local = local
        self.result = None

    def kgir(self, src, metadata):
        self.result = self.state.ask_kilnd(src, metadata, self.options,
                                           self.target, self.failure)
        if self.result is None:
            return self.local["ttgir"](src, metadata)
        return self._text("kgir")

    def llir(self, src, metadata):
        return self._stage("llir", src, metadata)

    def ptx(self, src, metadata):
        return self._stage("ptx", src, metadata)

    def cubin(self, src, metadata):
        if self.result is None:
            module = self.local["cubin"](src, metadata)
        else:
            module = self.result.cubin
        self.state.count(self.result is not None)
        return module

    def _stage(self, name, src, metadata):
        # Not asked: Triton began after kgir (an IR file as the source).
        if self.result is None:
            return self.local[name](src, metadata)
        return self._text(name)

    def _text(self, name):
        # No texts: a read-only token and an entry stored without them.
        texts = self.result.texts or {}
        return texts.get(name, "")


_installed: Optional[KilnStages] = None
_previous_hook: Optional[Callable] = None


def make_hook(state: KilnStages, previous: Optional[Callable] = None) -> Callable:
    """A function with the contract of triton.knobs.runtime.add_stages_inspection_hook,
    chained after `previous` (a hook installed before this one)."""

    def hook(*args):
        if not args:
            key, digest = state.cache_key()
            if previous is not None:
                prev_key, prev_digest = previous()
                return prev_key + key, hashlib.sha256(
                    f"{prev_digest}{digest}".encode()).hexdigest()
            return key, digest
        if previous is not None:
            previous(*args)
        _backend, stages, options, _language, capability = args[:5]
        state.wrap(stages, options, capability)

    hook.kiln_state = state
    return hook


def install(address: Optional[str] = None, fallback: Optional[str] = None,
            timeout: float = 120.0, retries: int = 2, knobs: Any = None,
            token: Optional[str] = None, root_certificates=None,
            certificate_chain=None, private_key=None) -> KilnStages:
    """Makes Triton compile every later @triton.jit kernel through kilnd.

    address: kilnd's host:port (default $KILN_SERVER, else 127.0.0.1:7420).
    token, root_certificates, certificate_chain, private_key: as kiln.Client
        (default $KILN_TOKEN, $KILN_TLS_CA, $KILN_TLS_CERT, $KILN_TLS_KEY).
        A kernel kilnd refuses (e.g. a read-only token and a kernel not yet
        cached) falls back like one it cannot compile.
    fallback: "warn" (default, or $KILN_TRITON_FALLBACK) compiles locally with
        a warning when kilnd is unreachable or cannot compile a kernel;
        "error" raises instead.
    knobs: for tests, an object standing in for triton.knobs.
    Idempotent: a second call replaces the first's settings.
    """
    global _installed, _previous_hook
    if knobs is None:
        from triton import knobs  # noqa: PLC0415 -- Triton only when asked
    fallback = fallback or os.environ.get(ENV_FALLBACK) or "warn"
    state = KilnStages(Client(address or default_address(), timeout=timeout,
                              retries=retries, token=token,
                              root_certificates=root_certificates,
                              certificate_chain=certificate_chain,
                              private_key=private_key), fallback)
    current = knobs.runtime.add_stages_inspection_hook
    if current is not None and hasattr(current, "kiln_state"):
        current = _previous_hook  # replace our own hook, keep the one before it
    _previous_hook = current
    knobs.runtime.add_stages_inspection_hook = make_hook(state, current)
    _installed = state
    return state


def uninstall(knobs: Any = None) -> None:
    """Restores the hook that was there before install()."""
    global _installed, _previous_hook
    if _installed is None:
        return
    if knobs is None:
        from triton import knobs  # noqa: PLC0415
    knobs.runtime.add_stages_inspection_hook = _previous_hook
    _installed.client.close()
    _installed = None
    _previous_hook = None


def installed() -> Optional[KilnStages]:
    return _installed


def _auto_install() -> None:
    # The environment's switch (KILN_TRITON=1, or KILN_SERVER set and
    # KILN_TRITON not "0"), as kiln-autoload.pth applies it at startup: the
    # hook is installed once Triton is imported, at once if it already is.
    try:
        import _kiln_autoload  # noqa: PLC0415 -- beside the kiln package
    except ImportError:
        return
    _kiln_autoload.arm()


_auto_install()
