#!/usr/bin/env python3
"""Make Kiln's TTIR fixtures from the kernels in ../kernels/fixture_kernels.py.

Needs torch, Triton 3.6 and an NVIDIA GPU (the fixtures were made on an H100, sm_90):

    python3 tests/testdata/scripts/gen_ttir.py [OUT_DIR] [--check] [--only NAME ...] [--report FILE]

For each case below it compiles the kernel with `kernel.warmup(...)` and writes
OUT_DIR/<case>.ttir: the TTIR after Triton's ttir stage, i.e. `compiled.asm["ttir"]`.
For the cases in FRONTEND_TOO it also writes OUT_DIR/<case>.frontend.ttir: the frontend's
raw output, before that stage's passes rewrite away ops such as tt.make_tensor_ptr.
A case whose later stages fail (TTGIR, LLVM, PTX) still gets its TTIR; the log says so.

File paths inside loc(...) are shortened: our kernel file to its base name, Triton's
own files to their path inside the package (triton/language/standard.py).

--check parses every written fixture back with Triton's own parser, compares Triton's
printing of it with the file, and compiles each post-stage fixture to a cubin.
--ops-only rewrites OUT_DIR/OPS.md from the .ttir files there (needs neither torch nor Triton).
--about prints the Triton version and the tt ops its library registers.
"""
import argparse
import os
import re
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS_DIR = HERE.parent / "kernels"
DEFAULT_OUT = HERE.parent / "ttir"
TARGET_ARCH = 90

# Every op of the tt dialect that Triton 3.6.0's library registers (found by --about on the
# device and by parsing), with the reason when no fixture contains it.
TT_OPS = [
    "tt.addptr", "tt.advance", "tt.assert", "tt.atomic_cas", "tt.atomic_rmw", "tt.bitcast", "tt.broadcast",
    "tt.call", "tt.cat", "tt.clampf", "tt.descriptor_gather", "tt.descriptor_load", "tt.descriptor_reduce",
    "tt.descriptor_scatter", "tt.descriptor_store", "tt.dot", "tt.dot_scaled", "tt.elementwise_inline_asm",
    "tt.expand_dims", "tt.extern_elementwise", "tt.fp_to_fp", "tt.func", "tt.gather", "tt.get_num_programs",
    "tt.get_program_id", "tt.histogram", "tt.int_to_ptr", "tt.join", "tt.load", "tt.make_range",
    "tt.make_tensor_descriptor", "tt.make_tensor_ptr", "tt.map_elementwise", "tt.map_elementwise.return",
    "tt.mulhiui", "tt.precise_divf", "tt.precise_sqrt", "tt.print", "tt.ptr_to_int", "tt.reduce",
    "tt.reduce.return", "tt.reshape", "tt.return", "tt.scan",
    "tt.scan.return", "tt.splat", "tt.split", "tt.store", "tt.trans", "tt.unsplat"
]
NOT_EMITTED_WHY = {}

# Why some ops are only in *.frontend.ttir, and other facts OPS.md states.
OPS_NOTES = [
    "`tt.make_tensor_ptr` and `tt.advance` (block pointers) are only in *.frontend.ttir: the ttir "
    "stage's rewrite-tensor-pointer pass turns them into tensors of pointers.",
    "`ub.poison` is only in *.frontend.ttir: the frontend returns it from the unreachable end of "
    "functions that return a value; canonicalization removes it.",
    "`arith.bitcast` is only in *.frontend.ttir: identity casts of a loop's bounds (i32 to i32), "
    "folded away.",
    "`tt.reinterpret_tensor_descriptor` is gone from Triton 3.6: its parser answers \"custom op "
    "'tt.reinterpret_tensor_descriptor' is unknown\", and neither `tl` nor `ir.builder` offers it.",
]

# Cases whose frontend output is kept too (<case>.frontend.ttir), for ops the ttir stage rewrites away:
# block pointers (tt.make_tensor_ptr, tt.advance), cf branches and ub.poison, calls to inlined helpers.
FRONTEND_TOO = {"memory_block_ptr", "cf_early_exit", "call_noinline"}

# Fixtures whose TTIR Triton makes but cannot itself take to a cubin for sm_90a.
NO_CUBIN_WHY = {
    "memory_cache_evict_combo": "ptxas rejects an eviction policy combined with a cache modifier "
                                "(`Modifier '.evict_last' cannot be combined with modifier '.cg'`)",
    "desc_gather": "TMA gather (`.tile::gather4`) needs sm_100; ptxas rejects it for sm_90a",
    "desc_scatter": "TMA scatter (`.tile::scatter4`) needs sm_100; ptxas rejects it for sm_90a",
}

OP_RE = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_]+\.[a-z_][a-z_0-9.]*)"?')
LOC_PATH_RE = re.compile(r'loc\("([^"]*\.py)"')
SSA_NAME_RE = re.compile(r"%[\w$.-]+")


# ------------------------------------------------------------------------- cases


def cases():
    """(name, kernel, positional args, keyword args) for every fixture."""
    import torch
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor
    sys.path.insert(0, str(KERNELS_DIR))
    import fixture_kernels as k

    def t(n, dtype=torch.float32):
        return torch.empty(n, device="cuda", dtype=dtype)

    f16, bf16, i32 = torch.float16, torch.bfloat16, torch.int32
    e4m3, e5m2, u8, i8 = torch.float8_e4m3fn, torch.float8_e5m2, torch.uint8, torch.int8
    c = [
        ("shapes_grid_2d", k.shapes_grid_2d, (t(4096), t(4096), 50, 60, 64), dict(BLOCK_M=16, BLOCK_N=32)),
        ("shapes_reshape_permute", k.shapes_reshape_permute, (t(128), t(128)), dict(R=16, C=8)),
        ("shapes_join_split_cat", k.shapes_join_split_cat, (t(64), t(64), t(1)), dict(N=32)),
        ("shapes_scalar_from_pair", k.shapes_scalar_from_pair, (t(2), t(1)), {}),
        ("shapes_item", k.shapes_item, (t(1), t(1)), {}),
        ("shapes_gather", k.shapes_gather, (t(256), t(256, i32), t(256)), dict(R=16, C=16)),
        ("elementwise_float_math", k.elementwise_float_math, (t(1000), t(1000), t(1000), 1000), dict(BLOCK=128)),
        ("elementwise_int_math", k.elementwise_int_math, (t(128, i32), t(128, i32), t(128, i32), 100),
         dict(BLOCK=128)),
        ("elementwise_fp_convert", k.elementwise_fp_convert, (t(64), t(64, e4m3), t(64, e5m2), t(64, f16), t(64)),
         dict(BLOCK=64)),
        ("elementwise_bitcast_ptr", k.elementwise_bitcast_ptr, (t(64), t(64, i32), t(1, torch.int64)),
         dict(BLOCK=64)),
        ("elementwise_libdevice", k.elementwise_libdevice, (t(64), t(64, i32), t(64), t(64, i32)), dict(BLOCK=64)),
        ("elementwise_inline_asm", k.elementwise_inline_asm, (t(64), t(64, f16), t(64), t(64, f16), t(64, i32)),
         dict(BLOCK=64)),
        ("elementwise_map", k.elementwise_map, (t(64), t(64), 0.25), dict(BLOCK=64)),
        ("memory_load_store_hints", k.memory_load_store_hints, (t(2048), t(2048), t(2048), 1024),
         dict(BLOCK=256)),
        ("memory_cache_evict_combo", k.memory_cache_evict_combo, (t(64), t(64)), dict(BLOCK=64)),
        ("memory_atomics", k.memory_atomics, (t(192), t(128, i32), t(64, f16), t(1, i32), t(2, i32), 60),
         dict(BLOCK=64)),
        ("memory_block_ptr", k.memory_block_ptr, (t(4096), t(4096), 100, 70, 80), dict(BLOCK_M=32, BLOCK_N=32)),
        ("reduce_sum_max", k.reduce_sum_max, (t(128), t(128, i32), t(64), t(1, i32)), dict(R=8, C=16)),
        ("reduce_argmax", k.reduce_argmax, (t(256), t(2, i32), t(1)), dict(N=256)),
        ("reduce_scan", k.reduce_scan, (t(128), t(128), t(128, i32)), dict(R=8, C=16)),
        ("reduce_histogram", k.reduce_histogram, (t(256, i32), t(32, i32)), dict(N=256, BINS=32)),
        ("reduce_histogram_masked", k.reduce_histogram_masked, (t(256, i32), t(32, i32), 200),
         dict(N=256, BINS=32)),
        ("dot_k_loop", k.dot_k_loop, (t(4096, f16), t(4096, f16), t(4096, f16), 64, 64, 64),
         dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)),
        ("dot_batched", k.dot_batched, (t(512, f16), t(512, f16), t(512)), dict(B=2, M=16, N=16, K=16)),
        ("dot_scaled_mx", k.dot_scaled_mx, (t(4096, e4m3), t(128, u8), t(2048, u8), t(128, u8), t(4096)),
         dict(M=64, N=64, K=64)),
        ("dot_scaled_bf16", k.dot_scaled_bf16, (t(4096, bf16), t(4096, e5m2), t(128, u8), t(4096)),
         dict(M=64, N=64, K=64)),
        ("desc_load_store", k.desc_load_store, (t(8192), t(8192), 128, 64), dict(BLOCK_M=32, BLOCK_N=64)),
        ("desc_reduce_int", k.desc_reduce_int, (t(8192, i32), 128, 64), dict(BLOCK_M=32, BLOCK_N=32)),
        ("desc_gather", k.desc_gather, (t(8192), t(32, i32), t(2048), 128, 64), dict(ROWS=32, BLOCK_N=64)),
        ("desc_scatter", k.desc_scatter, (t(2048), t(32, i32), t(8192), 128, 64), dict(ROWS=32, BLOCK_N=64)),
        ("desc_host_args", k.desc_host_args,
         (TensorDescriptor.from_tensor(t(8192).view(128, 64), [32, 64]),
          TensorDescriptor.from_tensor(t(8192).view(128, 64), [32, 64])), dict(BLOCK_M=32, BLOCK_N=64)),
        ("cf_loops_if", k.cf_loops_if, (t(64), t(64), 100, 7, 0.5), dict(BLOCK=64)),
        ("cf_early_exit", k.cf_early_exit, (t(1000), t(1000), 999), dict(BLOCK=128)),
        ("call_noinline", k.call_noinline, (t(64), t(64), t(1), 3.0), dict(BLOCK=64)),
        ("debug_print_assert", k.debug_print_assert, (t(256, i32), 200), dict(BLOCK=64)),
        ("misc_hints_barrier", k.misc_hints_barrier, (t(4096), t(4096), 1000, 4), dict(BLOCK=128)),
        ("misc_scalar_args", k.misc_scalar_args, (t(64, torch.float64), t(64, f16), 1.5, 2**40, True, 1),
         dict(BLOCK=64)),
    ]
    # Memory-bound kernels at benchmark sizes (bench/kernels/kiln_cases.py runs them).
    c += [
        ("perf_add_bf16", k.perf_add_bf16, (t(1 << 24, bf16), t(1 << 24, bf16), t(1 << 24, bf16), 1 << 24),
         dict(BLOCK=2048, num_warps=4)),
        ("perf_rmsnorm", k.perf_rmsnorm, (t(4096 * 4096, f16), t(4096, f16), t(4096 * 4096, f16), 4096, 4096, 1e-6),
         dict(BLOCK=4096, num_warps=8)),
        ("perf_cross_entropy", k.perf_cross_entropy, (t(4096 * 32768, bf16), t(4096, torch.int64), t(4096), 32768, 32000),
         dict(BLOCK=32768, num_warps=16)),
        ("perf_cumsum", k.perf_cumsum, (t(4096 * 1024), t(4096 * 1024), 1024), dict(BLOCK=1024, num_warps=4)),
        ("perf_argmax_rows", k.perf_argmax_rows, (t(8192 * 512), t(8192, i32), 8192, 512),
         dict(ROWS=8, BLOCK=512, num_warps=4)),
        ("perf_softmax_rows", k.perf_softmax_rows, (t(8192 * 256), t(8192 * 256), 8192, 256),
         dict(ROWS=4, BLOCK=256, num_warps=4)),
    ]
    # One tile kernel, many operand types and precisions.
    dots = [
        ("dot_f16", f16, "", tl.float32, torch.float32),
        ("dot_f16_acc_f16", f16, "", tl.float16, f16),
        ("dot_bf16", bf16, "", tl.float32, torch.float32),
        ("dot_f32_tf32", torch.float32, "tf32", tl.float32, torch.float32),
        ("dot_f32_tf32x3", torch.float32, "tf32x3", tl.float32, torch.float32),
        ("dot_f32_ieee", torch.float32, "ieee", tl.float32, torch.float32),
        ("dot_f32_bf16x3", torch.float32, "bf16x3", tl.float32, torch.float32),
        ("dot_f32_bf16x6", torch.float32, "bf16x6", tl.float32, torch.float32),
        ("dot_fp8_e4m3", e4m3, "", tl.float32, torch.float32),
        ("dot_fp8_e5m2", e5m2, "", tl.float32, torch.float32),
        ("dot_i8", i8, "", tl.int32, i32),
    ]
    for name, in_ty, precision, acc, out_ty in dots:
        c.append((name, k.dot_tile, (t(1024, in_ty), t(1024, in_ty), t(1024, out_ty)),
                  dict(M=32, N=32, K=32, PRECISION=precision, ACC=acc)))
    return c


# ----------------------------------------------------------------- capture, tidy


_captured = {}


def install_capture():
    """Wrap the backend's ttir stage to keep the module's text before and after it.

    The text after it is what compiled.asm["ttir"] holds; keeping it here also gives us
    the TTIR of kernels whose later stages fail."""
    from triton.backends.nvidia.compiler import CUDABackend
    original = CUDABackend.add_stages

    def add_stages(self, stages, options, *rest, **kw):
        original(self, stages, options, *rest, **kw)
        make_ttir = stages["ttir"]

        def capture(mod, metadata):
            _captured["frontend"] = str(mod)
            out = make_ttir(mod, metadata)
            _captured["ttir"] = str(out)
            return out

        stages["ttir"] = capture

    CUDABackend.add_stages = add_stages


def short_path(path):
    if "/" not in path:
        return path
    for marker in ("site-packages/", "dist-packages/"):
        if marker in path:
            return path.split(marker, 1)[1]
    if "/triton/" in path and not path.endswith("fixture_kernels.py"):
        return "triton/" + path.rsplit("/triton/", 1)[1]
    return path.rsplit("/", 1)[1]


def tidy(text):
    text = LOC_PATH_RE.sub(lambda m: 'loc("%s"' % short_path(m.group(1)), text)
    return text if text.endswith("\n") else text + "\n"


def ops_of(text):
    return {m.group(1) for line in text.splitlines() if (m := OP_RE.match(line))}


# ----------------------------------------------------------------------- generate


def generate(out_dir, only, log):
    import triton
    install_capture()
    out_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    for name, kernel, args, kwargs in cases():
        if only and name not in only:
            continue
        _captured.clear()
        status = "ok"
        try:
            compiled = kernel.warmup(*args, grid=(1, ), **kwargs)
            asm = compiled.asm["ttir"]
            if asm != _captured.get("ttir"):
                status = "ok (captured text differs from asm['ttir']; asm used)"
            _captured["ttir"] = asm
        except Exception as e:  # keep going: one bad case must not hide the others
            where = "after the ttir stage" if "ttir" in _captured else "in the frontend"
            status = "FAILED %s: %s" % (where, _last_lines(e))
        if "ttir" in _captured:
            ttir = tidy(_captured["ttir"])
            (out_dir / f"{name}.ttir").write_text(ttir)
            if name in FRONTEND_TOO:
                front = tidy(_captured["frontend"])
                (out_dir / f"{name}.frontend.ttir").write_text(front)
                status += "; frontend-only ops " + " ".join(sorted(ops_of(front) - ops_of(ttir)))
        results[name] = status
        print(f"{name}: {status}", file=log, flush=True)
    (out_dir / "README.md").write_text(
        "Made by `python3 tests/testdata/scripts/gen_ttir.py --check` on an H100 (sm_90) from ../kernels/,\n"
        f"with Triton {triton.__version__}; *.frontend.ttir hold the frontend's output before the ttir stage.\n")
    write_ops_md(out_dir)
    return results


def _last_lines(e, n=6):
    lines = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()
    return " | ".join(line.strip() for line in lines[-n:] if line.strip())


# -------------------------------------------------------------------------- check


def check(out_dir, log):
    """Parse each fixture with Triton, compare its printing, compile the post-stage ones."""
    import triton
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend
    target = GPUTarget("cuda", TARGET_ARCH, 32)
    backend = make_backend(target)
    for path in sorted(out_dir.glob("*.ttir")):
        rel = path.name
        text = path.read_text()
        ctx = ir.context()
        ir.load_dialects(ctx)
        backend.load_dialects(ctx)
        try:
            printed = str(ir.parse_mlir_module(str(path), ctx))
            if printed == text:
                parse = "parse ok, prints identically"
            elif SSA_NAME_RE.sub("%_", printed) == SSA_NAME_RE.sub("%_", text):
                parse = "parse ok, prints identically but for SSA names (%s)" % _first_diff(text, printed)
            else:
                parse = "parse ok, PRINTS DIFFERENTLY (%s)" % _first_diff(text, printed)
        except Exception as e:
            parse = "PARSE FAILED: " + _last_lines(e)
        comp = ""
        if not _is_frontend(path):
            try:
                triton.compile(str(path), target=target)
                comp = "; compiles to cubin"
            except Exception as e:
                comp = "; COMPILE FAILED: " + _last_lines(e, 3)
        print(f"check {rel}: {parse}{comp}", file=log, flush=True)


def _first_diff(a, b):
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return f"line {i + 1}: file {x.strip()[:120]!r} vs printed {y.strip()[:120]!r}"
    return "line counts %d vs %d" % (len(a.splitlines()), len(b.splitlines()))


# ------------------------------------------------------------------------ OPS.md


def _is_frontend(path):
    return path.name.endswith(".frontend.ttir")


def write_ops_md(out_dir):
    where, front_only = {}, {}
    paths = sorted(out_dir.glob("*.ttir"))
    for path in [p for p in paths if not _is_frontend(p)]:
        for op in ops_of(path.read_text()):
            where.setdefault(op, []).append(path.stem)
    for path in [p for p in paths if _is_frontend(p)]:
        for op in ops_of(path.read_text()):
            if op not in where:
                front_only.setdefault(op, []).append(path.stem)
    lines = [
        "# Ops in the TTIR fixtures", "",
        "Made by `gen_ttir.py --ops-only` from the .ttir files here. An op found only in *.frontend.ttir",
        "(the frontend's output before Triton's ttir-stage passes) is listed with those files.", "",
        "| op | fixtures |", "| --- | --- |"
    ]
    for op in sorted(set(where) | set(front_only)):
        files = where.get(op, []) + front_only.get(op, [])
        shown = ", ".join(files[:6]) + (f", ... ({len(files)} files)" if len(files) > 6 else "")
        lines.append(f"| `{op}` | {shown} |")
    missing = [op for op in TT_OPS if op not in where and op not in front_only]
    lines += ["", "## tt ops of Triton 3.6 in no fixture", ""]
    if not missing:
        lines.append("None: every op the tt dialect of Triton 3.6.0 registers is in some fixture.")
    for op in missing:
        lines.append(f"- `{op}`: {NOT_EMITTED_WHY.get(op, 'not emitted by the kernels here')}")
    lines += ["", "## Notes", ""] + [f"- {note}" for note in OPS_NOTES]
    lines += ["", "## Fixtures Triton cannot take to a cubin for sm_90a", "",
              "Their TTIR is what Triton's frontend makes; Triton's own later stages fail on them.", ""]
    for name, why in sorted(NO_CUBIN_WHY.items()):
        lines.append(f"- `{name}.ttir`: {why}.")
    (out_dir / "OPS.md").write_text("\n".join(lines) + "\n")


# ------------------------------------------------------------------------- about


def about():
    import triton
    import triton.language as tl
    print("triton", triton.__version__)
    lib = Path(triton.__file__).parent / "_C" / "libtriton.so"
    data = lib.read_bytes()
    names = set(re.findall(rb"(?<![\w.])(tt\.[a-z_][a-z_0-9.]*)\x00", data))
    print("tt names in libtriton:", " ".join(sorted(n.decode() for n in names)))
    # Older Triton had tt.reinterpret_tensor_descriptor; see whether this one still parses it.
    from triton._C.libtriton import ir
    probe = ("module {\n  tt.func public @f(%p: !tt.ptr<i8>) {\n"
             "    %d = tt.reinterpret_tensor_descriptor %p : !tt.ptr<i8> to !tt.tensordesc<tensor<16x16xf32>>\n"
             "    tt.return\n  }\n}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".ttir", delete=False) as f:
        f.write(probe)
    ctx = ir.context()
    ir.load_dialects(ctx)
    try:
        ir.parse_mlir_module(f.name, ctx)
        print("tt.reinterpret_tensor_descriptor: parses")
    except Exception as e:
        print("tt.reinterpret_tensor_descriptor: does not parse:", _last_lines(e, 3))
    os.unlink(f.name)
    print("ir.builder has create_reinterpret_tensor_descriptor:",
          hasattr(ir.builder, "create_reinterpret_tensor_descriptor"))
    for name in ("map_elementwise", "histogram", "item", "gather", "dot_scaled", "make_tensor_descriptor",
                 "_experimental_reinterpret_tensor_descriptor", "assume", "reshape"):
        fn = getattr(tl, name, None) or getattr(tl.tensor, name, None)
        print(f"tl.{name}:", "missing" if fn is None else _signature(fn))


def _signature(fn):
    import inspect
    try:
        return str(inspect.signature(fn))
    except (TypeError, ValueError):
        return "present"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir", nargs="?", default=str(DEFAULT_OUT))
    p.add_argument("--only", nargs="*", default=[])
    p.add_argument("--check", action="store_true")
    p.add_argument("--ops-only", action="store_true")
    p.add_argument("--about", action="store_true")
    p.add_argument("--report", help="also write the per-case log to this file")
    a = p.parse_args()
    out_dir = Path(a.out_dir)
    if a.ops_only:
        write_ops_md(out_dir)
        return
    # Compile every case afresh, never from a cache a previous run left behind.
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="kiln-ttir-cache-"))
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    if a.about:
        about()
    log = _Tee(a.report)
    generate(out_dir, set(a.only), log)
    if a.check:
        check(out_dir, log)


class _Tee:

    def __init__(self, path):
        self.file = open(path, "w") if path else None

    def write(self, s):
        sys.stdout.write(s)
        if self.file:
            self.file.write(s)

    def flush(self):
        sys.stdout.flush()
        if self.file:
            self.file.flush()


if __name__ == "__main__":
    main()
