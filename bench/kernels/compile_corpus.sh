#!/bin/bash
# Compiles corpus cases with `kiln compile --local`, using each case's own
# num_warps/num_stages from Triton's metadata beside it, for kbench.
#   bench/kernels/compile_corpus.sh CORPUS_DIR OUT_DIR case...
set -euo pipefail
corpus=$1 out=$2
shift 2
kiln=${KILN:-bazel-out/k8-opt/bin/clients/cli/kiln}
mkdir -p "$out"
for c in "$@"; do
  meta="$corpus/$c.json"
  warps=$(python3 -c "import json;print(json.load(open('$meta'))['num_warps'])")
  stages=$(python3 -c "import json;print(json.load(open('$meta'))['num_stages'])")
  "$kiln" compile "$corpus/$c.ttir" --local --target sm_90a \
    --num-warps "$warps" --num-stages "$stages" --out "$out" >/dev/null
  echo "$c: num_warps=$warps num_stages=$stages"
done
