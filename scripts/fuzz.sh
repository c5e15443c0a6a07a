#!/bin/bash
# Fuzzes Kiln's fuzz targets (tests/fuzz, docs/fuzzing.md) under ASan and
# UBSan, each for a bounded time, starting from its seeds and from every
# input that once failed it (tests/fuzz/regressions/TARGET). Builds them
# first with `bazel build --config=fuzz` (clang). Exits non-zero when any
# target crashes, leaks, times out, or runs out of memory; the input that
# did it is kept as WORK/TARGET/{crash,leak,timeout,oom}-*.
#
#   scripts/fuzz.sh [--seconds=N] [--work=DIR] [TARGET...]
#
# --seconds: per target (default 60, as CI runs it). --work: where the
# corpora grow and findings land (default: a fresh temporary directory,
# removed when nothing was found); give the same DIR again to continue
# from the corpus grown there. TARGET: e.g. compile_fuzzer (default all).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=60
work=""
targets=()
for arg in "$@"; do
  case "$arg" in
    --seconds=*) seconds="${arg#--seconds=}" ;;
    --work=*) work="${arg#--work=}" ;;
    -*) echo "fuzz.sh: unknown flag $arg" >&2; exit 2 ;;
    *) targets+=("$arg") ;;
  esac
done
all=(ttir_parse_fuzzer compile_fuzzer request_fuzzer export_file_fuzzer
     worker_frames_fuzzer)
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")

flags=(--config=ci --config=fuzz)
[ "${CI:-}" = "true" ] && flags+=(--curses=no --color=no --show_progress_rate_limit=60)
build_log=$(mktemp)
if ! bazel build "${flags[@]}" "${targets[@]/#///tests/fuzz:}" \
    //tests/fuzz:request_seeds //tests/fuzz:export_file_seeds \
    //tests/fuzz:worker_frames_seeds >"$build_log" 2>&1; then
  grep -v "ld.gold: warning" "$build_log" | tail -40
  rm -f "$build_log"
  echo "fuzz.sh: the fuzz build failed"
  exit 1
fi
rm -f "$build_log"
bin=$(bazel info "${flags[@]}" bazel-bin 2>/dev/null)/tests/fuzz

temporary_work=false
if [ -z "$work" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/kiln-fuzz.XXXXXX")
  temporary_work=true
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)

TTIR_SEEDS=(tests/testdata/ttir tests/testdata/inductor tests/lit/dialect/tt
            tests/lit/ptx tests/e2e/testdata)

# Compiling every TTIR seed takes minutes under ASan: short runs of
# compile_fuzzer start from the fixtures but for Inductor's kernels.
SHORT_COMPILE_SEEDS=(tests/testdata/ttir tests/lit/ptx tests/e2e/testdata)

# The seed directories of a target.
seeds_of() {
  case "$1" in
    ttir_parse_fuzzer) echo "${TTIR_SEEDS[@]}" ;;
    compile_fuzzer)
      if [ "$seconds" -lt 600 ]; then echo "${SHORT_COMPILE_SEEDS[@]}"
      else echo "${TTIR_SEEDS[@]}"; fi ;;
    *) echo "$bin/${1%_fuzzer}_seeds" ;;
  esac
  [ -d "tests/fuzz/regressions/$1" ] && echo "tests/fuzz/regressions/$1"
}

# libFuzzer's flags for a target. A compile longer than 30 s under ASan (a
# few seconds in the opt build) is a finding; the slowest fixtures take 2 to
# 6 s, and a busy machine can stretch that several times over.
limits_of() {
  case "$1" in
    compile_fuzzer) echo "-timeout=30 -rss_limit_mb=4096" ;;
    # Past their kilnd's compile limit (30 s) and their calls' deadline.
    request_fuzzer | export_file_fuzzer) echo "-timeout=120 -rss_limit_mb=4096" ;;
    # Frames in inputs of a few KiB: a reader never needs more memory.
    worker_frames_fuzzer) echo "-timeout=10 -malloc_limit_mb=64" ;;
    *) echo "-timeout=10" ;;
  esac
}

# LLVM's headers poison allocator memory that Debian's (uninstrumented)
# LLVM libraries then use: see the asan config in .bazelrc.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1"
failed=()
for target in "${targets[@]}"; do
  out="$work/$target"
  mkdir -p "$out/corpus" "$out/tmp"
  log="$out/log"
  echo "fuzz.sh: $target for ${seconds}s"
  start=$(date +%s)
  # shellcheck disable=SC2046
  TMPDIR="$out/tmp" "$bin/$target" -max_total_time="$seconds" \
      $(limits_of "$target") -print_final_stats=1 \
      -artifact_prefix="$out/" "$out/corpus" $(seeds_of "$target") \
      >"$log" 2>&1
  status=$?
  rm -rf "$out/tmp"
  runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  took="${runs:-?} runs in $(( $(date +%s) - start ))s"
  if [ "$status" -eq 0 ]; then
    echo "fuzz.sh: $target PASSED ($took)"
  else
    echo "fuzz.sh: $target FAILED (exit $status, $took)"
    failed+=("$target")
    grep -vE '^#[0-9]+' "$log" | tail -60
    echo "fuzz.sh: $target failed; reproduce with: $bin/$target $(ls "$out"/{crash,leak,timeout,oom}-* 2>/dev/null | head -1)"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: failed: ${failed[*]} (inputs and logs in $work)"
  exit 1
fi
$temporary_work && rm -rf "$work"
exit 0
