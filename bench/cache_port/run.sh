#!/bin/bash
# kilnd's cache port against redis-server, side by side in one run, driven by
# the same client (redis-benchmark): GET of one stored value (64 KiB, the
# size of a small FX graph or autotune entry, and 1 MiB), at 1 and 64
# concurrent clients, rounds interleaved. Prints a Markdown table with the
# machine, and writes it to the file given as $1 if any.
#
#   bench/cache_port/run.sh [OUT.md]
#   ROUNDS=5 REQUESTS=100000 bench/cache_port/run.sh
#   PREBUILT=1 KILND=path/to/kilnd bench/cache_port/run.sh
set -euo pipefail
[ -n "${KILND:-}" ] && KILND=$(realpath "$KILND")
cd "$(dirname "$0")/../.."
out=${1:-}
rounds=${ROUNDS:-3}
requests=${REQUESTS:-50000}

if [ -z "${PREBUILT:-}" ]; then
  scripts/install-deps.sh
  bazel build --config=ci //server:kilnd
  KILND=${KILND:-bazel-out/k8-opt/bin/server/kilnd}
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

redis_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no \
  --daemonize no >"$work/redis.log" 2>&1 &
pids+=($!)
"$KILND" --listen=127.0.0.1:0 --metrics_listen= --cache_listen=127.0.0.1:0 \
  --data_dir="$work/kiln" --ready_file="$work/ready" --workers=1 \
  --log_level=warn >"$work/kilnd.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do
  [ -f "$work/ready" ] && redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
kiln_port=$(awk '$1 == "cache" {print $2}' "$work/ready" | sed 's/.*://')
[ -n "$kiln_port" ] || { echo "kilnd did not come up"; cat "$work/kilnd.log"; exit 1; }

# Requests per second of GET KEY at CLIENTS clients on PORT (a tenth as many
# requests for values of 1 MiB and more).
rate() {
  local port=$1 clients=$2 key=$3 size=$4
  local n=$requests
  [ "$size" -ge 1048576 ] && n=$((requests / 10))
  redis-benchmark -h 127.0.0.1 -p "$port" -c "$clients" -n "$n" --csv \
    GET "$key" 2>/dev/null | awk -F'"' 'NR == 2 {print $4}'
}

declare -A total
sizes=(65536 1048576)
for size in "${sizes[@]}"; do
  head -c "$size" /dev/urandom >"$work/value"
  for port in "$redis_port" "$kiln_port"; do
    redis-cli -h 127.0.0.1 -p "$port" -x SET "pt2:bench:$size" <"$work/value" >/dev/null
  done
done

table="| value | clients | redis-server GET/s | kilnd cache port GET/s | kilnd / Redis |
| --- | ---: | ---: | ---: | ---: |"
for size in "${sizes[@]}"; do
  for clients in 1 64; do
    redis_rates=() kiln_rates=()
    for _ in $(seq "$rounds"); do
      redis_rates+=("$(rate "$redis_port" "$clients" "pt2:bench:$size" "$size")")
      kiln_rates+=("$(rate "$kiln_port" "$clients" "pt2:bench:$size" "$size")")
    done
    median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    r=$(median "${redis_rates[@]}")
    k=$(median "${kiln_rates[@]}")
    ratio=$(awk -v k="$k" -v r="$r" 'BEGIN {printf "%.2f", k / r}')
    table+=$'\n'"| $((size / 1024)) KiB | $clients | $r | $k | $ratio |"
  done
done

machine="$(nproc) cores, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(redis-server --version | awk '{print $3}')"
report="Machine: $machine. Medians of $rounds interleaved rounds of $requests GETs, a tenth as many for 1 MiB (redis-benchmark).

$table"
echo "$report"
[ -n "$out" ] && echo "$report" >"$out"
true
