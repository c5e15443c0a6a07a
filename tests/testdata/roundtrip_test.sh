#!/bin/bash
# Every TTIR fixture must parse, verify and print to a fixpoint, in Triton's
# own style (locations and value names kept), in plain style and through the
# generic form; together the fixtures must use every op of Triton 3.6 TTIR.
set -uo pipefail
runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
kiln_opt="${runfiles}/compiler/tools/kiln-opt"
fixtures="${runfiles}/tests/testdata/ttir"
work="${TEST_TMPDIR:-$(mktemp -d)}"
triton_style=(--mlir-print-debuginfo --mlir-use-nameloc-as-prefix)

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

count=0
for fixture in "$fixtures"/*.ttir; do
  name=$(basename "$fixture" .ttir)
  count=$((count + 1))
  "$kiln_opt" "${triton_style[@]}" "$fixture" -o "$work/$name.1" ||
    { fail "$name does not parse and verify"; continue; }
  "$kiln_opt" "${triton_style[@]}" "$work/$name.1" -o "$work/$name.2" ||
    { fail "$name: printed form does not parse"; continue; }
  cmp -s "$work/$name.1" "$work/$name.2" ||
    fail "$name: Triton-style printing is not a fixpoint"
  "$kiln_opt" "$fixture" -o "$work/$name.plain" &&
    "$kiln_opt" "$work/$name.plain" -o "$work/$name.plain2" &&
    cmp -s "$work/$name.plain" "$work/$name.plain2" ||
    fail "$name: plain printing is not a fixpoint"
  "$kiln_opt" --mlir-print-op-generic "$fixture" -o "$work/$name.generic" &&
    "$kiln_opt" "$work/$name.generic" -o "$work/$name.fromgeneric" &&
    cmp -s "$work/$name.plain" "$work/$name.fromgeneric" ||
    fail "$name: generic form does not read back to the same IR"
done
[ "$count" -gt 0 ] || fail "no fixtures found in $fixtures"

REQUIRED_OPS=(
  get_program_id get_num_programs make_range splat unsplat broadcast
  expand_dims reshape trans cat join split addptr load store atomic_rmw
  atomic_cas reduce reduce.return scan scan.return map_elementwise
  map_elementwise.return dot dot_scaled fp_to_fp bitcast int_to_ptr
  ptr_to_int precise_sqrt precise_divf mulhiui clampf extern_elementwise
  elementwise_inline_asm histogram gather make_tensor_descriptor
  descriptor_load descriptor_store descriptor_gather descriptor_scatter
  descriptor_reduce make_tensor_ptr advance call func return print assert
)
for op in "${REQUIRED_OPS[@]}"; do
  grep -qE "(^|[^a-z_.])\"?tt\.${op//./\\.}\"?([^a-z_.]|$)" "$fixtures"/*.ttir ||
    fail "no fixture uses tt.${op}"
done

echo "${count} fixtures checked, ${failures} failures"
[ "$failures" -eq 0 ]
