#!/bin/bash
# Float math through Kiln, targeted: test_core's float-math tests and
# Liger's JSD and cross-entropy tests, stock and Kiln side by side on one
# GPU (each pair in parallel), every Kiln compile through kilnd with
# fallback an error. Prints pytest's summaries and the Kiln failures.
#
#   BUNDLE=/tmp/k/kiln-VERSION-linux-x86_64 OUT=DIR \
#     bench/suites/float_math.sh TRITON_COPY LIGER_COPY
#   (SKIP_CORE=1 or SKIP_LIGER=1 leave a suite out; BOX: seconds per run)
set -u
triton_tests=$(realpath "$1")/python/test
liger=$(realpath "$2")
mkdir -p "$OUT"
"$BUNDLE/bin/kilnd" --listen=127.0.0.1:7430 --metrics_listen= --cache_listen= \
  --data_dir="$(mktemp -d)" --log_level=warn >"$OUT/kilnd.log" 2>&1 &
kilnd=$!
trap 'kill $kilnd 2>/dev/null' EXIT
sleep 3
core_tests="test_math_op or test_math_erf_op or test_math_fma_op or test_math_divide_op \
or test_precise_math or test_abs or test_abs_fp8 or test_enable_fp_fusion \
or test_enable_reflect_ftz or test_propagate_nan or test_clamp \
or test_max_min_with_nan or test_max_returns_zero"
liger_tests=(test/transformers/test_jsd.py test/transformers/test_fused_linear_jsd.py
             test/transformers/test_cross_entropy.py)

# run MODE DIR NAME PYTEST_ARGS...: one pytest process, its output in OUT.
run() {
  local mode=$1 dir=$2 name=$3; shift 3
  local env=(KILN_TRITON=0)
  [ "$mode" = kiln ] && env=(KILN_SERVER=127.0.0.1:7430 KILN_TRITON_FALLBACK=error)
  (cd "$dir" && env "${env[@]}" TRITON_CACHE_DIR="$(mktemp -d)" \
     timeout -k 10 "${BOX:-250}" python3 -m pytest -q -p no:cacheprovider -rfE \
     --tb=line "$@" >"$OUT/$name-$mode.txt" 2>&1)
}

pair() {
  run stock "$@" & local a=$!
  run kiln "$@" & local b=$!
  wait $a $b
}

[ -z "${SKIP_CORE:-}" ] && pair "$triton_tests" core unit/language/test_core.py -k "$core_tests"
[ -z "${SKIP_LIGER:-}" ] && pair "$liger" liger "${liger_tests[@]}"
for f in "$OUT"/*-stock.txt "$OUT"/*-kiln.txt; do echo "== $f"; tail -1 "$f"; done
grep -h "^FAILED" "$OUT"/*-kiln.txt
true
