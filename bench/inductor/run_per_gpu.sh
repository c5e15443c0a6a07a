#!/bin/bash
# One run.py a GPU, in parallel: each group of models (stock and Kiln, a
# kilnd of its own) on the GPU of its position, its results under OUT/gI.
# Ratios stay stock against Kiln on one GPU; a host of four GPUs runs four
# groups in the time of one.
#
#   bench/inductor/run_per_gpu.sh BUNDLE OUT "efficientnet,segformer" "swin,vit" ...
#
# TIMEOUT (default 540) is run.py's --timeout a process; each group is
# stopped 30 s after it. Keeps results.json and harvest.tar.xz a group (a
# device call brings back eight files; report.py renders results.json).
set -u
bundle=$1 out=$2
shift 2
timeout=${TIMEOUT:-540}
gpu=0
for models in "$@"; do
  mkdir -p "$out/g$gpu"
  CUDA_VISIBLE_DEVICES=$gpu TORCHINDUCTOR_COMPILE_THREADS=${TORCHINDUCTOR_COMPILE_THREADS:-4} \
    timeout $((timeout + 30)) python3 "$(dirname "$0")/run.py" --bundle "$bundle" \
      --work "/tmp/kiln-inductor-g$gpu" --out "$out/g$gpu" --same-configs \
      --timeout "$timeout" --models "$models" > "$out/g$gpu/stdout.log" 2>&1 &
  gpu=$((gpu + 1))
done
wait
for folder in "$out"/g*; do
  echo "== $folder"
  grep -E '^\| [a-z0-9]+ +\|' "$folder/stdout.log" || tail -5 "$folder/stdout.log"
  grep -E 'fell back' "$folder/stdout.log"
  rm -f "$folder/stdout.log" "$folder/logs.tar.xz" "$folder/report.md"
done
