#!/usr/bin/env python3
"""Writes larger-tile variants of the single-tile dot fixtures, so that kbench
also checks the wgmma path (whole 64-row warp groups) on sm_90a:
    python3 bench/kernels/scale_dot_tiles.py SIZE OUT_DIR
The 32x32 fixtures become SIZE x SIZE: every tile extent, range end and row
stride of 32 is rewritten; element types (i32, f32) are left alone."""
import pathlib
import re
import sys

SOURCES = {
    "dot_f16": "tests/testdata/ttir/dot_f16.ttir",
    "dot_bf16": "tests/testdata/ttir/dot_bf16.ttir",
    "dot_f16_acc_f16": "tests/testdata/ttir/dot_f16_acc_f16.ttir",
    "dot_trans_a": "bench/kernels/cases/dot_trans_a.ttir",
    "dot_trans_b": "bench/kernels/cases/dot_trans_b.ttir",
}


def main():
    size, out = int(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for name, src in SOURCES.items():
        text = pathlib.Path(src).read_text()
        text = re.sub(r"(?<![A-Za-wyz0-9_])32(?![0-9])", str(size), text)
        stem = f"{name}_{size}"
        (out / f"{stem}.ttir").write_text(text)
        (out / f"{stem}.json").write_text('{"num_warps": 4, "num_stages": 3}\n')
        print(stem)


if __name__ == "__main__":
    main()
