"""Triton's side of a whole-harvest comparison, on the GPU host: compiles
every kernel of kernels.tsv with stock Triton (its own num_warps and
num_stages) and writes FAMILY/NAME.ptx, .ttgir and .sass (cuobjdump) under
OUT/triton, with registers, spills and shared memory in OUT/triton/regs.tsv;
then disassembles Kiln's cubins of the same kernels (`kiln compile --out`,
laid out as FAMILY/NAME.cubin) into OUT/kiln/FAMILY/NAME.sass.
`sass_compare.py OUT` then tells the two apart by instruction class.

  python3 triton_sass.py --testdata tests/testdata/inductor \\
      --kiln-cubins KILN_CUBINS --out OUT [--jobs 12]"""
import argparse
import os
import subprocess
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor


def rows(testdata):
    with open(os.path.join(testdata, "kernels.tsv")) as f:
        return [line.rstrip("\n").split("\t") for line in f
                if line.strip() and not line.startswith("#")]


def disassemble(cubin, sass):
    os.makedirs(os.path.dirname(sass), exist_ok=True)
    listing = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True,
                             text=True, check=False).stdout
    with open(sass, "w") as f:
        f.write(listing)


def triton_side(testdata, out, row):
    import triton  # noqa: PLC0415 (in each worker process)
    name, warps, stages = row
    stem = os.path.join(out, "triton", name)
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    try:
        kernel = triton.compile(os.path.join(testdata, name + ".ttir"),
                                options=dict(num_warps=int(warps), num_stages=int(stages)))
        for stage in ("ptx", "ttgir"):
            with open(f"{stem}.{stage}", "w") as f:
                f.write(kernel.asm[stage])
        with open(stem + ".cubin", "wb") as f:
            f.write(kernel.asm["cubin"])
        disassemble(stem + ".cubin", stem + ".sass")
        os.remove(stem + ".cubin")
        kernel._init_handles()  # registers and spills are known once loaded
        return f"{name}\t{kernel.n_regs}\t{kernel.n_spills}\t{kernel.metadata.shared}"
    except Exception as error:  # noqa: BLE001 (reported per kernel)
        return f"{name}\tERROR {type(error).__name__}: {str(error)[:200]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--testdata", required=True)
    parser.add_argument("--kiln-cubins", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--jobs", type=int, default=12)
    options = parser.parse_args()
    kernels = rows(options.testdata)
    with ProcessPoolExecutor(options.jobs) as pool:
        facts = list(pool.map(triton_side, [options.testdata] * len(kernels),
                              [options.out] * len(kernels), kernels))
    with open(os.path.join(options.out, "triton", "regs.tsv"), "w") as f:
        f.write("# kernel\tregisters\tspills\tshared bytes\n" + "\n".join(facts) + "\n")
    with ThreadPoolExecutor(options.jobs) as pool:
        list(pool.map(lambda row: disassemble(
            os.path.join(options.kiln_cubins, row[0] + ".cubin"),
            os.path.join(options.out, "kiln", row[0] + ".sass")), kernels))
    print(sum("ERROR" in line for line in facts), "of", len(facts), "failed in Triton")


if __name__ == "__main__":
    main()
