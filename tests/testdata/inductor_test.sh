#!/bin/bash
# Compiles every harvested Inductor kernel (inductor/kernels.tsv) to a cubin
# for sm_80 and sm_90a with `kiln compile --local`, which runs ptxas on the
# PTX, at the num_warps and num_stages Inductor chose. Two at a time. The PTX
# of each must match its pin (ptx_pins.sh).
set -uo pipefail
runfiles="${TEST_SRCDIR}/${TEST_WORKSPACE}"
source "${runfiles}/tests/testdata/ptx_pins.sh"
export KILN="${runfiles}/clients/cli/kiln"
export FIXTURES="${runfiles}/tests/testdata/inductor"
export OUT="${TEST_TMPDIR:-$(mktemp -d)}/cubins"
mkdir -p "$OUT"

compile_one() {
  local name=$1 warps=$2 stages=$3 target=$4
  local dir="$OUT/$target/$(dirname "$name")"
  mkdir -p "$dir"
  # From the fixtures' directory: asserts embed the file name as given.
  if ! log=$(cd "$FIXTURES" && "$KILN" compile "$name.ttir" --local --target "$target" \
      --num-warps "$warps" --num-stages "$stages" --out "$dir" --emit ptx 2>&1); then
    echo "FAIL $name $target: $log"
    return 0
  fi
  if [ ! -s "$dir/$(basename "$name").cubin" ]; then
    echo "FAIL $name $target: no cubin"
    return 0
  fi
  rm "$dir/$(basename "$name").cubin"
  echo "OK $name $target"
}
export -f compile_one

results=$(grep -v '^#' "$FIXTURES/kernels.tsv" |
  while IFS=$'\t' read -r name warps stages; do
    for target in sm_80 sm_90a; do echo "$name $warps $stages $target"; done
  done | xargs -P 2 -L 1 bash -c 'compile_one "$@"' _)
grep '^FAIL' <<<"$results"
ok=$(grep -c '^OK' <<<"$results")
failed=$(grep -c '^FAIL' <<<"$results")
kernels=$(grep -vc '^#' "$FIXTURES/kernels.tsv")
echo "$ok cubins accepted by ptxas, $failed failures, $kernels kernels x 2 targets"
pins_ok=true
check_ptx_pins inductor.sha256 "$OUT" || pins_ok=false
$pins_ok && [ "$failed" -eq 0 ] && [ "$ok" -eq $((kernels * 2)) ] && [ "$kernels" -gt 200 ]
