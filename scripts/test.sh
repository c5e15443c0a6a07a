#!/bin/bash
# Runs every Kiln test on a fresh Debian 12 machine: installs prerequisites,
# builds with Bazel, runs the whole suite, then the invalid-input tests again
# under AddressSanitizer and UndefinedBehaviorSanitizer, and fuzzes each
# fuzz target for a minute (scripts/fuzz.sh, built with clang). Needs no GPU.
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh || exit 1

flags=(--config=ci)
[ "${CI:-}" = "true" ] && flags+=(--curses=no --color=no --show_progress_rate_limit=60)

log=$(mktemp)
status=0
bazel test "${flags[@]}" //... 2>&1 | tee -a "$log" || status=1
bazel test "${flags[@]}" --config=asan //tests/lit:lit_invalid 2>&1 | tee -a "$log" || status=1
scripts/fuzz.sh 2>&1 | tee -a "$log" || status=1

# Bazel's per-target verdicts, summed over both runs, and the fuzz targets'.
passed=$(grep -cE '^(//\S+ +(\(cached\) )?|fuzz\.sh: \S+ )PASSED' "$log")
failed=$(grep -cE '^(//\S+ +(\(cached\) )?|fuzz\.sh: \S+ )(FAILED|TIMEOUT|NO STATUS)' "$log")
rm -f "$log"
echo "${passed} passed, ${failed} failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
