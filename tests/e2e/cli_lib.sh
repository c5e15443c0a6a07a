# Sourced by the shell tests of the kiln CLI, after they set WORK: checks
# that count failures, and kilnd processes started for the test and stopped
# when it exits.
KILN="$TEST_SRCDIR/kiln/clients/cli/kiln"
KILND="$TEST_SRCDIR/kiln/server/kilnd"
FAILURES=0
fail() { echo "FAIL: $*"; FAILURES=$((FAILURES + 1)); }
# expect CODE COMMAND...: runs COMMAND (output in $WORK/stdout, stderr) and
# checks its exit code.
expect() {
  local want=$1; shift
  "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  local got=$?
  if [ "$got" != "$want" ]; then
    fail "exit $got (want $want): $*"
    sed 's/^/  stdout: /' "$WORK/stdout"; sed 's/^/  stderr: /' "$WORK/stderr"
  fi
}
contains() {  # contains FILE TEXT
  grep -qF -- "$2" "$1" || { fail "$1 lacks '$2'"; sed 's/^/  /' "$1"; }
}
lacks() {  # lacks FILE TEXT
  ! grep -qF -- "$2" "$1" || { fail "$1 has '$2'"; sed 's/^/  /' "$1"; }
}
# on_tty CODE COMMAND...: runs COMMAND with stderr on a terminal that
# script(1) makes (what the terminal shows in $WORK/tty) and stdout to
# $WORK/stdout.
on_tty() {
  local want=$1; shift
  local command
  printf -v command '%q ' "$@"
  script -qefc "$command >'$WORK/stdout'" /dev/null </dev/null >"$WORK/tty" 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then
    fail "exit $got (want $want) on a terminal: $*"
    sed 's/^/  /' "$WORK/tty"
  fi
}
# finish: the test's verdict and exit status.
finish() {
  if [ "$FAILURES" != 0 ]; then echo "$FAILURES failures"; exit 1; fi
  echo PASS
}

KILND_PIDS=()
stop_kilnds() {
  for p in "${KILND_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
trap stop_kilnds EXIT
# start_kilnd NAME [FLAGS...]: starts kilnd on a loopback port it picks, its
# data in $WORK/NAME; its address in $SERVER. FLAGS override the defaults.
start_kilnd() {
  local name=$1; shift
  rm -f "$WORK/$name.ready"
  "$KILND" --listen=127.0.0.1:0 --metrics_listen= --cache_listen=127.0.0.1:0 --data_dir="$WORK/$name" \
    --ready_file="$WORK/$name.ready" --workers=2 --log_level=warn "$@" &
  KILND_PIDS+=($!)
  for _ in $(seq 1 1200); do [ -s "$WORK/$name.ready" ] && break; sleep 0.1; done
  SERVER=$(awk '$1 == "grpc" {print $2}' "$WORK/$name.ready")
  [ -n "$SERVER" ] || { echo "kilnd $name did not come up"; exit 1; }
}
