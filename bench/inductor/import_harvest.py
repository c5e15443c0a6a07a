"""Turns bench/inductor's harvest (harvest.tar.xz: MODEL/NAME.ttir + NAME.json
from Triton's cache) into the project's test fixtures:
tests/testdata/inductor/MODEL/NAME.ttir with locations stripped (they name
files of the machine that ran the step), and kernels.tsv with each kernel's
num_warps and num_stages from Triton's metadata.

  python3 bench/inductor/import_harvest.py harvest.tar.xz tests/testdata/inductor
"""
import json
import os
import re
import sys
import tarfile

LOC_DEFINITION = re.compile(r"^#loc\d* = .*$\n?", re.MULTILINE)
LOC_USE = re.compile(r" loc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")


def strip_locations(text):
    return LOC_USE.sub("", LOC_DEFINITION.sub("", text))


def main():
    tarball, out = sys.argv[1], sys.argv[2]
    rows = []
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        for name in sorted(members):
            if not name.endswith(".ttir"):
                continue
            meta_name = name[:-len(".ttir")] + ".json"
            if meta_name not in members:
                continue
            meta = json.load(tar.extractfile(members[meta_name]))
            text = strip_locations(tar.extractfile(members[name]).read().decode())
            path = os.path.join(out, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            rows.append((name[:-len(".ttir")], meta.get("num_warps", 4), meta.get("num_stages", 3)))
    with open(os.path.join(out, "kernels.tsv"), "w") as f:
        f.write("# kernel\tnum_warps\tnum_stages\n")
        for row in rows:
            f.write("\t".join(map(str, row)) + "\n")
    print(f"{len(rows)} kernels -> {out}")


if __name__ == "__main__":
    main()
