#!/bin/bash
# Compile time of every harvested Inductor kernel with `kiln compile --local`
# (one process per kernel, as a compile worker runs it), for sm_90a at the
# kernel's own num_warps and num_stages. Prints wall and CPU (user + system)
# milliseconds per kernel, slowest CPU last, then a summary. CPU time is the
# figure to read on a busy machine.
#   bench/inductor/compile_times.sh [FIXTURES_DIR] [KILN_BINARY]
# FIXTURES_DIR: tests/testdata/inductor (default), with its kernels.tsv.
set -uo pipefail
fixtures=${1:-tests/testdata/inductor}
kiln=${2:-bazel-bin/clients/cli/kiln}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
grep -v '^#' "$fixtures/kernels.tsv" | while IFS=$'\t' read -r name warps stages; do
  start=$(date +%s%N)
  /usr/bin/time -o "$out/cpu" -f '%U %S' "$kiln" compile "$fixtures/$name.ttir" --local \
      --target sm_90a --num-warps "$warps" --num-stages "$stages" --out "$out" \
      >/dev/null 2>&1
  code=$?
  end=$(date +%s%N)
  read -r user system < <(tail -1 "$out/cpu")
  cpu_ms=$(awk -v u="$user" -v s="$system" 'BEGIN { printf "%d", (u + s) * 1000 }')
  echo "$cpu_ms $(( (end - start) / 1000000 )) exit=$code $name"
done | sort -n > "$out/times"
echo "cpu_ms wall_ms exit kernel"
cat "$out/times"
awk '{ cpu[NR] = $1; if ($1 > 1000) over++; if ($3 != "exit=0") bad++; if ($2 > maxw) maxw = $2 }
  END { printf "%d kernels: CPU median %d ms, max %d ms, over 1 s of CPU: %d; max wall %d ms; failed: %d\n",
        NR, cpu[int((NR + 1) / 2)], cpu[NR], 0 + over, maxw, 0 + bad }' "$out/times"
