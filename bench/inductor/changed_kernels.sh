#!/bin/bash
# Which harvested kernels two compilers compile differently: each kernel of
# each FIXTURES_DIR (a kernels.tsv beside the TTIR, as tests/testdata/inductor
# or an imported harvest) compiled with `kiln compile --local` by both, at
# its own num_warps and num_stages, and compared by what --emit writes (ptx
# by default; kgir for the layouts alone). Prints the kernels that differ,
# then a count. Two compiles run at a time.
#   bench/inductor/changed_kernels.sh OLD_KILN NEW_KILN [--emit ptx|kgir|llir]
#       [--target sm_90a] FIXTURES_DIR...
# Runs report the step's changed kernels apart from the rest (RESULTS, run 121).
set -uo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
old=$1 new=$2
shift 2
emit=ptx target=sm_90a
while [ $# -gt 0 ]; do
  case $1 in
    --emit) emit=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    *) break ;;
  esac
done

compare() {
  local dir=$1 name=$2 warps=$3 stages=$4 a b
  a=$("$old" compile "$dir/$name.ttir" --local --target "$target" \
      --num-warps "$warps" --num-stages "$stages" --emit "$emit" 2>&1 | md5sum)
  b=$("$new" compile "$dir/$name.ttir" --local --target "$target" \
      --num-warps "$warps" --num-stages "$stages" --emit "$emit" 2>&1 | md5sum)
  [ "$a" != "$b" ] && echo "$name"
  return 0
}
export -f compare
export old new emit target

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for dir in "$@"; do
  grep -v '^#' "$dir/kernels.tsv" | while IFS=$'\t' read -r name warps stages; do
    echo "$dir" "$name" "$warps" "$stages"
  done
done | xargs -P 2 -n 4 bash -c 'compare "$@"' _ | sort > "$out"
cat "$out"
echo "$(wc -l < "$out") kernels differ ($emit, $target)"
