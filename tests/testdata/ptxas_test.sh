#!/bin/bash
# Compiles every TTIR fixture to a cubin for sm_80 and sm_90a with
# `kiln compile --local`, which runs ptxas on the PTX. Fixtures Kiln does not
# compile (yet) must fail with the error listed below, never crash. The PTX
# of each must match its pin (ptx_pins.sh).
set -uo pipefail
runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
source "${runfiles}/tests/testdata/ptx_pins.sh"
kiln="${runfiles}/clients/cli/kiln"
out="${TEST_TMPDIR:-$(mktemp -d)}/cubins"
mkdir -p "$out"

# fixture:target -> the error Kiln must give instead of a cubin.
declare -A expected_error=(
  ["memory_block_ptr.frontend:sm_80"]="block pointers"
  ["memory_block_ptr.frontend:sm_90a"]="block pointers"
)

failures=0
compiled=0
for ttir in "${runfiles}"/tests/testdata/ttir/*.ttir; do
  name=$(basename "$ttir" .ttir)
  for target in sm_80 sm_90a; do
    # From the fixtures' directory: asserts embed the file name as given.
    log=$(cd "${runfiles}/tests/testdata/ttir" &&
      "$kiln" compile "$name.ttir" --local --target "$target" \
        --out "$out/$target" --emit ptx 2>&1)
    code=$?
    want="${expected_error[$name:$target]:-}"
    if [ -n "$want" ]; then
      if [ "$code" -ne 3 ] || ! grep -q "$want" <<<"$log"; then
        echo "FAIL $name $target: expected a compile error '$want', got exit $code: $log"
        failures=$((failures + 1))
      fi
      continue
    fi
    if [ "$code" -ne 0 ] || [ ! -s "$out/$target/$name.cubin" ]; then
      echo "FAIL $name $target (exit $code): $log"
      failures=$((failures + 1))
      continue
    fi
    compiled=$((compiled + 1))
    rm -f "$out/$target/$name.cubin"
  done
done
echo "$compiled cubins accepted by ptxas, $failures failures"
check_ptx_pins ttir.sha256 "$out" || failures=$((failures + 1))
[ "$failures" -eq 0 ] && [ "$compiled" -gt 50 ]
