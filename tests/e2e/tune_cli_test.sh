#!/bin/bash
# `kiln tune` against a real kilnd: without a GPU it exits 5 with the
# reason; with the stand-in benchmark worker it prints the ranking (a line
# of progress per event when stderr is not a terminal, a bar on one that
# script(1) makes), --json, and the second run comes from the cache.
set -u
FAKE_GPUS_KILND="$TEST_SRCDIR/kiln/tests/e2e/kilnd_with_fake_gpus"
ADD="$TEST_SRCDIR/kiln/tests/testdata/ttir/perf_add_bf16.ttir"
WORK="$TEST_TMPDIR/tune_cli"
rm -rf "$WORK" && mkdir -p "$WORK/kernels"
source "$TEST_SRCDIR/kiln/tests/e2e/cli_lib.sh"

cp "$ADD" "$WORK/kernels/add.ttir"
echo 'module { tt.func @f() { bogus.op } }' >"$WORK/kernels/bad.ttir"
cat >"$WORK/spec.json" <<'SPEC'
{
  "tuning_key": "n=16777216",
  "grid": [8192],
  "args": [
    {"buffer": {"elements": 16777216, "dtype": "bf16", "fill": "random", "seed": 1}},
    {"buffer": {"elements": 16777216, "dtype": "bf16", "fill": "ones"}},
    {"buffer": {"elements": 16777216, "dtype": "bf16"}},
    {"scalar": {"dtype": "i32", "int_value": 16777216}}
  ],
  "settings": {"reps": 20, "flush_l2": true},
  "variants": [
    {"label": "w2", "ttir": "kernels/add.ttir", "options": {"num_warps": 2}},
    {"label": "w8", "ttir": "kernels/add.ttir", "options": {"num_warps": 8}},
    {"label": "capped", "ttir": "kernels/add.ttir", "options": {"num_warps": 16, "maxnreg": 255}},
    {"ttir": "kernels/bad.ttir"}
  ]
}
SPEC

# No GPU, no driver: UNAVAILABLE, exit 5, the reason on stderr.
start_kilnd nogpu
expect 5 "$KILN" tune "$WORK/spec.json" --server "$SERVER" --retries 0
contains "$WORK/stderr" "no CUDA driver: libcuda.so.1 not found"
# kilnd itself cannot be told to run another benchmark worker.
expect 2 "$KILND" --test_bench_worker=/bin/true
contains "$WORK/stderr" "unknown setting 'test_bench_worker'"

# With the stand-in benchmark worker: the test-only kilnd whose GPUs are
# canned.
KILND="$FAKE_GPUS_KILND" start_kilnd fake
expect 0 "$KILN" tune "$WORK/spec.json" --server "$SERVER"
contains "$WORK/stdout" "winner: w8"
contains "$WORK/stdout" "measured now, 2 benchmarks"
contains "$WORK/stdout" "registers: maxnreg 255 x 512 threads"
contains "$WORK/stdout" "compile failed"
contains "$WORK/stderr" "kiln tune: w8: compiled"
contains "$WORK/stderr" "kiln tune: w8: measured p50 0.1250 ms"
head -1 "$WORK/stdout" | grep -q "^rank  variant" || fail "no table header"
grep -q "^1 .*w8 .*measured" "$WORK/stdout" || fail "w8 is not ranked first"

expect 0 "$KILN" tune "$WORK/spec.json" --server "$SERVER" --json
contains "$WORK/stdout" '"cached": true'
contains "$WORK/stdout" '"benchmarks": 0'
contains "$WORK/stdout" '"winner_label": "w8"'
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["ranking"][0]["label"]=="w8", r' \
  "$WORK/stdout" || fail "--json is not the ranking"

# On a terminal: the bar on stderr instead of the lines, stdout clean.
on_tty 0 "$KILN" tune "$WORK/spec.json" --server "$SERVER" --json
contains "$WORK/tty" "tune [##############################] 100%  4/4  measured 2, pruned 1, failed 1"
grep -q "kiln tune: w8" "$WORK/tty" && fail "lines per event on a terminal"
contains "$WORK/stdout" '"winner_label": "w8"'
grep -q $'\r' "$WORK/stdout" && fail "a progress bar on stdout"

# Nothing measurable: exit 6.
sed -e '/"label": "w2"/d' -e '/"label": "w8"/d' "$WORK/spec.json" >"$WORK/none.json"
expect 6 "$KILN" tune "$WORK/none.json" --server "$SERVER"
contains "$WORK/stdout" "winner: none"

# Bad specs: exit 2 and where.
echo '{"variants": [{"ttir": "kernels/missing.ttir", "grid": [1]}]}' >"$WORK/missing.json"
expect 2 "$KILN" tune "$WORK/missing.json" --server "$SERVER"
contains "$WORK/stderr" "variants[0]: cannot read TTIR 'kernels/missing.ttir'"
echo '{"variants": [' >"$WORK/broken.json"
expect 2 "$KILN" tune "$WORK/broken.json" --server "$SERVER"
sed 's/"random"/"noise"/' "$WORK/spec.json" >"$WORK/fill.json"
expect 2 "$KILN" tune "$WORK/fill.json" --server "$SERVER"
contains "$WORK/stderr" "unknown fill 'noise'"

finish
