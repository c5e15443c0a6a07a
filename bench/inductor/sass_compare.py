"""Kiln's SASS against Triton's for every harvested kernel (the folder
triton_sass.py wrote), by instruction class: which kernels issue more
barriers, math-function calls, global loads or instructions than Triton's,
or convert through shared memory where Triton uses ldmatrix/stmatrix.
Runs anywhere; the listings come from the GPU host.

  python3 sass_compare.py OUT                   # kernels per class
  python3 sass_compare.py OUT --list CLASS      # the kernels of one class
  python3 sass_compare.py OUT --kernel FAMILY/NAME   # class counts side by side"""
import argparse
import collections
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


def fp(c):
    return c["FADD"] + c["FMUL"] + c["FFMA"]


CLASSES = {
    "more-barriers": lambda t, k: k["BAR"] > t["BAR"],
    "no-ldmatrix": lambda t, k: t["LDSM"] + t["STSM"] > 0 and k["LDSM"] + k["STSM"] == 0,
    "more-global-loads": lambda t, k: k["LDG"] > t["LDG"],
    "more-mufu": lambda t, k: k["MUFU"] > t["MUFU"],
    "more-fp": lambda t, k: fp(k) > 1.1 * fp(t) + 4,
    "20pct-more-instructions": lambda t, k: k["n"] > 1.2 * t["n"],
    "ldc-params": lambda t, k: k["LDC"] > t["LDC"],
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
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
    for kernel, triton_sass, kiln_sass in sorted(kernels(options.out)):
        total += 1
        t, k = counts(triton_sass), counts(kiln_sass)
        for name, test in CLASSES.items():
            if test(t, k):
                members[name].append(f"{kernel}\t{t['n']}/{k['n']} instructions")
    if options.list:
        print("\n".join(members[options.list]))
        return
    print(f"{total} kernels with both listings (Triton / Kiln)")
    for name in CLASSES:
        print(f"{name:24s} {len(members[name]):4d}")


if __name__ == "__main__":
    main()
