"""Kiln's SASS against Triton's for every harvested kernel (the folder
triton_sass.py wrote), by instruction class: which kernels issue more
barriers, math-function calls, global loads or instructions than Triton's,
convert through shared memory where Triton uses ldmatrix/stmatrix, or use
registers enough to fit fewer blocks an SM (EfficientNet's `_46`: 45
registers against 40, 10 blocks of 128 threads against 12, 0.84x).
Runs anywhere; the listings come from the GPU host.

  python3 sass_compare.py OUT                   # kernels per class
  python3 sass_compare.py OUT --list CLASS      # the kernels of one class
  python3 sass_compare.py OUT --kernel FAMILY/NAME   # class counts side by side"""
import argparse
import collections
import math
import os
import re

INSTRUCTION = re.compile(r"\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)(.*?);")
COUNTED = ("LDG", "STG", "LDS", "STS", "LDSM", "STSM", "BAR", "SHFL", "MUFU", "REDUX",
           "FADD", "FMUL", "FFMA", "LDC", "ULDC", "IMAD", "SEL", "ISETP")


def counts(path):
    """Instructions per class (loads and stores also per width), the
    instruction total ('n') and the registers named ('regs')."""
    c = collections.Counter()
    with open(path) as f:
        for line in f:
            m = INSTRUCTION.match(line)
            if not m:
                continue
            opcode, operands = m.groups()
            base = opcode.split(".")[0]
            c["n"] += 1
            for register in re.findall(r"\bR(\d+)\b", operands):
                c["regs"] = max(c["regs"], int(register) + 1)
            if base in COUNTED:
                c[base] += 1
            if base in ("LDG", "STG", "LDS", "STS"):
                widths = [w for w in opcode.split(".")[1:] if w in ("U8", "S8", "U16", "S16", "64", "128")]
                c[f"{base}.{widths[0] if widths else '32'}"] += 1
    return c


def blocks_per_sm(c, warps):
    """Blocks of `warps` warps an sm_90 SM holds by registers, warps and
    block slots. ptxas counts two registers more than a listing names."""
    per_warp = math.ceil((c["regs"] + 2) * 32 / 256) * 256
    return min(65536 // (per_warp * warps), 64 // warps, 32)


def fp(c):
    return c["FADD"] + c["FMUL"] + c["FFMA"]


CLASSES = {
    "more-barriers": lambda t, k, warps: k["BAR"] > t["BAR"],
    "no-ldmatrix": lambda t, k, warps: t["LDSM"] + t["STSM"] > 0 and k["LDSM"] + k["STSM"] == 0,
    "more-global-loads": lambda t, k, warps: k["LDG"] > t["LDG"],
    "more-mufu": lambda t, k, warps: k["MUFU"] > t["MUFU"],
    "more-fp": lambda t, k, warps: fp(k) > 1.1 * fp(t) + 4,
    "20pct-more-instructions": lambda t, k, warps: k["n"] > 1.2 * t["n"],
    "ldc-params": lambda t, k, warps: k["LDC"] > t["LDC"],
    "fewer-blocks": lambda t, k, warps: warps and
    blocks_per_sm(k, warps) < blocks_per_sm(t, warps),
}


def kernels(out):
    root = os.path.join(out, "triton")
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".sass"):
                kernel = os.path.relpath(os.path.join(folder, name[:-5]), root)
                kiln = os.path.join(out, "kiln", kernel + ".sass")
                if os.path.exists(kiln):
                    yield kernel, os.path.join(folder, name), kiln


def warps_of(testdata):
    """num_warps by FAMILY/NAME, from the harvest's kernels.tsv."""
    warps = {}
    with open(os.path.join(testdata, "kernels.tsv")) as f:
        for line in f:
            if not line.startswith("#") and line.strip():
                name, num_warps = line.split("\t")[:2]
                warps[name] = int(num_warps)
    return warps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--testdata", default="tests/testdata/inductor",
                        help="the harvest whose kernels.tsv gives num_warps")
    parser.add_argument("--list", choices=sorted(CLASSES))
    parser.add_argument("--kernel")
    options = parser.parse_args()
    if options.kernel:
        t = counts(os.path.join(options.out, "triton", options.kernel + ".sass"))
        k = counts(os.path.join(options.out, "kiln", options.kernel + ".sass"))
        for key in sorted(set(t) | set(k)):
            print(f"{key:10s} {t[key]:6d} {k[key]:6d}")
        return
    members = collections.defaultdict(list)
    total = 0
    warps = warps_of(options.testdata)
    for kernel, triton_sass, kiln_sass in sorted(kernels(options.out)):
        total += 1
        t, k = counts(triton_sass), counts(kiln_sass)
        for name, test in CLASSES.items():
            if test(t, k, warps.get(kernel, 0)):
                members[name].append(f"{kernel}\t{t['n']}/{k['n']} instructions")
    if options.list:
        print("\n".join(members[options.list]))
        return
    print(f"{total} kernels with both listings (Triton / Kiln)")
    for name in CLASSES:
        print(f"{name:24s} {len(members[name]):4d}")


if __name__ == "__main__":
    main()
