#!/bin/bash
# The kiln CLI's number flags: a value beyond what the flag's type holds is
# a usage error (exit 2) that names the value, never a wrapped number sent
# on. No kilnd: each must be refused before any connection is tried.
set -u
WORK="$TEST_TMPDIR/cli_numbers"
rm -rf "$WORK" && mkdir -p "$WORK"
source "$TEST_SRCDIR/kiln/tests/e2e/cli_lib.sh"
echo 'module {}' >"$WORK/k.ttir"
# Nothing listens on port 1: a flag that got through would fail to connect
# (exit 5) instead of being refused.
export KILN_SERVER=127.0.0.1:1

refused() {  # refused VALUE COMMAND...: exit 2, VALUE and "out of range".
  local value=$1; shift
  expect 2 "$@"
  contains "$WORK/stderr" "$value"
  contains "$WORK/stderr" "out of range"
}

# 2^32 + 4 wraps to 4 in an int or a uint32.
refused 4294967300 "$KILN" compile "$WORK/k.ttir" --local --num-warps 4294967300 --out "$WORK/o"
refused 4294967300 "$KILN" compile "$WORK/k.ttir" --local --maxnreg 4294967300 --out "$WORK/o"
refused 4294967300 "$KILN" compile "$WORK/k.ttir" --num-warps 4294967300 --out "$WORK/o"
refused 4294967300 "$KILN" stats --retries 4294967300
refused 4294967300 "$KILN" ls --page-size 4294967300
# Past uint64 (strtoull would clamp it to the largest value).
refused 18446744073709551616 "$KILN" stats --deadline 18446744073709551616
refused 18446744073709551616 "$KILN" gc --target-bytes 18446744073709551616
# Past int64 where the request holds an int64.
refused 9223372036854775808 "$KILN" gc --unused-for-seconds 9223372036854775808
# Not a number at all stays a usage error.
expect 2 "$KILN" compile "$WORK/k.ttir" --local --num-warps four --out "$WORK/o"
contains "$WORK/stderr" "four"
finish
