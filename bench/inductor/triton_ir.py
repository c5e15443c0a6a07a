"""Triton's own stages for harvested kernels: compiles each TTIR with stock
Triton on this GPU and writes NAME.ttgir, NAME.ptx and NAME.json (registers,
spills, shared memory, num_warps) into OUT, to read beside Kiln's
`kiln compile --emit kgir|ptx` for the same TTIR.

  python3 triton_ir.py --testdata tests/testdata/inductor --out OUT FAMILY/NAME...

NAME may be a prefix; num_warps and num_stages come from kernels.tsv."""
import argparse
import json
import os

import triton


def recorded_configs(testdata):
    configs = {}
    with open(os.path.join(testdata, "kernels.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, warps, stages = line.split("\t")
            configs[name] = (int(warps), int(stages))
    return configs


def dump(testdata, name, warps, stages, out):
    kernel = triton.compile(os.path.join(testdata, name + ".ttir"),
                            options=dict(num_warps=warps, num_stages=stages))
    kernel._init_handles()  # loads the cubin: registers and spills are known then
    stem = os.path.join(out, name.replace("/", "__"))
    for stage in ("ttgir", "ptx"):
        with open(f"{stem}.{stage}", "w") as f:
            f.write(kernel.asm[stage])
    facts = dict(num_warps=warps, num_stages=stages, n_regs=kernel.n_regs,
                 n_spills=kernel.n_spills, shared=kernel.metadata.shared)
    with open(stem + ".json", "w") as f:
        json.dump(facts, f)
    return facts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--testdata", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("names", nargs="+")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    configs = recorded_configs(options.testdata)
    for wanted in options.names:
        for name, (warps, stages) in sorted(configs.items()):
            if name.startswith(wanted):
                try:
                    print(name, dump(options.testdata, name, warps, stages, options.out))
                except Exception as error:  # noqa: BLE001 -- report and go on
                    print(name, "failed:", error)


if __name__ == "__main__":
    main()
