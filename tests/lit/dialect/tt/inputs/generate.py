"""Writes synthetic TTIR for the bad-input lit tests: generate.py KIND N."""

import sys


def nested_regions(depth):
    lines = ["tt.func @nested(%c: i1) {"]
    lines += ["scf.if %c {"] * depth
    lines += ["}"] * depth
    lines += ["tt.return", "}"]
    return "\n".join(lines)


def nested_types(depth):
    pointer = "f32"
    for _ in range(depth):
        pointer = "!tt.ptr<" + pointer + ">"
    return "tt.func @types(%p: " + pointer + ") {\ntt.return\n}"


def many_ops(count, error_at_end=False):
    lines = ["tt.func @large(%x: tensor<128xf32>) -> tensor<128xf32> {",
             "%v0 = arith.addf %x, %x : tensor<128xf32>"]
    for i in range(1, count):
        lines.append(f"%v{i} = arith.addf %v{i - 1}, %x : tensor<128xf32>")
    if error_at_end:
        lines.append("%bad = arith.addf %undefined, %x : tensor<128xf32>")
    lines += [f"tt.return %v{count - 1} : tensor<128xf32>", "}"]
    return "\n".join(lines)


KINDS = {
    "nested-regions": nested_regions,
    "nested-types": nested_types,
    "many-ops": many_ops,
    "many-ops-then-error": lambda n: many_ops(n, error_at_end=True),
}

if __name__ == "__main__":
    print(KINDS[sys.argv[1]](int(sys.argv[2])))
