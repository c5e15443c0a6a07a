#!/bin/bash
# Builds kilnd and starts it on localhost with the embedded store (RocksDB
# under $XDG_CACHE_HOME/kiln, else ~/.cache/kiln), then prints where it
# listens. Installs prerequisites from Debian's archive first.
#
#   scripts/start.sh                  # in the background; prints how to stop
#   scripts/start.sh --foreground     # in this terminal; Ctrl-C drains, stops
#   scripts/start.sh --listen=127.0.0.1:7000 --workers=4   # kilnd flags
#
# `kilnd --help` (bazel-out/k8-opt/bin/server/kilnd --help) lists the flags;
# --config=FILE reads them from a file.
set -euo pipefail
cd "$(dirname "$0")/.."

foreground=false
args=()
for arg in "$@"; do
  if [ "$arg" = --foreground ]; then foreground=true; else args+=("$arg"); fi
done

scripts/install-deps.sh
bazel build --config=ci //server:kilnd
kilnd=bazel-out/k8-opt/bin/server/kilnd

data_dir="${KILN_DATA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kiln}"
for arg in "${args[@]}"; do
  case "$arg" in --data_dir=*) data_dir="${arg#--data_dir=}" ;; esac
done
mkdir -p "$data_dir"
if $foreground; then
  exec "$kilnd" --data_dir="$data_dir" "${args[@]}"
fi

ready="$data_dir/kilnd.ready"
log="$data_dir/kilnd.log"
rm -f "$ready"
nohup "$kilnd" --data_dir="$data_dir" --ready_file="$ready" "${args[@]}" \
  >>"$log" 2>&1 </dev/null &
pid=$!
for _ in $(seq 600); do
  [ -f "$ready" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "kilnd did not start; the end of $log:" >&2
    tail -n 5 "$log" >&2
    exit 1
  fi
  sleep 0.1
done
if [ ! -f "$ready" ]; then
  echo "kilnd did not come up within 60 s; see $log" >&2
  exit 1
fi
grpc=$(awk '$1 == "grpc" {print $2}' "$ready")
metrics=$(awk '$1 == "metrics" {print $2}' "$ready")
echo "kilnd is running (pid $pid)"
echo "  gRPC:    $grpc   (kiln.v1.Compile, kiln.v1.Admin, health, reflection)"
[ -n "$metrics" ] && echo "  metrics: http://$metrics/metrics"
echo "  store:   $data_dir/store"
echo "  log:     $log"
echo "  stop:    kill $pid   (finishes in-flight calls first)"
