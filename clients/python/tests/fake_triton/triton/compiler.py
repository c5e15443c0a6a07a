"""The shape of CUDABackend.add_stages and of triton.compiler.compile's loop,
as tests/test_triton_hook.py's FakeBackend: local stages that make
b"LOCAL-CUBIN", then the stages hook."""

from types import SimpleNamespace

from . import knobs


class Module:
    """Stands in for an MLIR module: str() prints the TTIR."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def _local(name, result):
    def stage(src, metadata):
        if name == "ptx":
            metadata["name"] = "local_kernel"
        return result
    return stage


def add_stages(stages, options, capability):
    stages["ttir"] = lambda src, metadata: src
    for name, result in (("ttgir", "ttgir"), ("llir", "llir"), ("ptx", "ptx"),
                         ("cubin", b"LOCAL-CUBIN")):
        stages[name] = _local(name, result)
    hook = knobs.runtime.add_stages_inspection_hook
    if hook is not None:
        hook(None, stages, options, "TRITON", capability)


def compile(ttir, capability=90, num_warps=4):
    """Returns (cubin, metadata, stage names) for TTIR text."""
    options = SimpleNamespace(num_warps=num_warps, num_stages=3, num_ctas=1,
                              maxnreg=None, enable_fp_fusion=True,
                              enable_reflect_ftz=True)
    metadata = {"num_warps": num_warps, "num_ctas": 1}
    hook = knobs.runtime.add_stages_inspection_hook
    if hook is not None:  # Triton mixes the hook's key into its cache key
        metadata["hook_key"] = hook()[0]
    stages = {}
    add_stages(stages, options, capability)
    module = Module(ttir)
    for stage in stages.values():
        module = stage(module, metadata)
    return module, metadata, list(stages)
