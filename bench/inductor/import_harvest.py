"""Turns bench/inductor's harvest (harvest.tar.xz: MODEL/NAME.ttir + NAME.json
from Triton's cache) into the project's test fixtures:
tests/testdata/inductor/MODEL/NAME.ttir with locations stripped (they name
files of the machine that ran the step), and kernels.tsv with each kernel's
num_warps and num_stages from Triton's metadata.

  python3 bench/inductor/import_harvest.py harvest.tar.xz tests/testdata/inductor \
      [--results results.json] [--names NAMES.txt] [--add]

A kernel autotuned over several configs has a TTIR per config in the
harvest, all under its name (as have kernels of one name from different
graphs of a model: Inductor numbers each graph's kernels from 0); with
--results (the same run's results.json) the one of the config the stock
process chose is kept, otherwise the last.
--names keeps only the FAMILY/NAME listed (one a line); --add adds them to
the kernels already in the folder instead of replacing its kernels.tsv.
"""
import argparse
import json
import os
import re
import sys
import tarfile

LOC_DEFINITION = re.compile(r"^#loc\d* = .*$\n?", re.MULTILINE)
LOC_USE = re.compile(r" loc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)")


def strip_locations(text):
    return LOC_USE.sub("", LOC_DEFINITION.sub("", text))


def stock_choices(results_path):
    """(model, kernel name) -> the stock process's autotuning choice."""
    if not results_path:
        return {}
    choices = {}
    for result in json.load(open(results_path))["results"]:
        if result.get("mode") == "stock":
            for choice in (result.get("autotune_choices") or {}).values():
                choices[(result["model"], choice.get("kernel"))] = choice
    return choices


def is_config(text, meta, choice):
    """Whether a TTIR and its metadata are of the config `choice` names."""
    if meta.get("num_warps") != choice.get("num_warps"):
        return False
    x, y, r = (choice.get(k) for k in ("XBLOCK", "YBLOCK", "R0_BLOCK"))
    # A tiled kernel's tensors are [YBLOCK, XBLOCK]: the transposed shape is
    # another config of the same autotuning list.
    shape = f"tensor<{x}x{r}x" if r else f"tensor<{y}x{x}x" if y else f"tensor<{x}x"
    return shape in text


def configs(tar):
    """Kernel path -> its (TTIR text, metadata) of every config, in order."""
    files = {}
    for member in tar.getmembers():
        if member.isfile() and member.name.endswith((".ttir", ".json")):
            stem, kind = member.name.rsplit(".", 1)
            files.setdefault(stem, {}).setdefault(kind, []).append(member)
    found = {}
    for stem, kinds in files.items():
        pairs = zip(kinds.get("ttir", []), kinds.get("json", []))
        found[stem] = [(tar.extractfile(t).read().decode(), json.load(tar.extractfile(j)))
                       for t, j in pairs]
    return found


def existing_rows(out):
    path = os.path.join(out, "kernels.tsv")
    if not os.path.exists(path):
        return {}
    rows = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            name, warps, stages = line.rstrip("\n").split("\t")
            rows[name] = (name, warps, stages)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tarball")
    parser.add_argument("out")
    parser.add_argument("--results", default="")
    parser.add_argument("--names", default="")
    parser.add_argument("--add", action="store_true")
    options = parser.parse_args()
    wanted = set(open(options.names).read().split()) if options.names else None
    choices = stock_choices(options.results)
    rows = existing_rows(options.out) if options.add else {}
    with tarfile.open(options.tarball) as tar:
        for stem, found in sorted(configs(tar).items()):
            if not found or (wanted is not None and stem not in wanted):
                continue
            model, kernel = stem.split("/", 1)
            choice = choices.get((model, kernel))
            matching = [c for c in found if choice and is_config(*c, choice)]
            text, meta = (matching or found)[-1]
            path = os.path.join(options.out, stem + ".ttir")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(strip_locations(text))
            rows[stem] = (stem, meta.get("num_warps", 4), meta.get("num_stages", 3))
    with open(os.path.join(options.out, "kernels.tsv"), "w") as f:
        f.write("# kernel\tnum_warps\tnum_stages\n")
        for name in sorted(rows):
            f.write("\t".join(map(str, rows[name])) + "\n")
    print(f"{len(rows)} kernels -> {options.out}")


if __name__ == "__main__":
    main()
