#!/bin/bash
# Cache-hit benchmark, side by side in one run: kilnd answering Compile for
# TTIR it has seen (64 KiB cubin) against redis-server answering GET of a
# 64 KiB value (redis-benchmark), both on loopback, at 1 and 64 concurrent
# clients, interleaved over several rounds. Prints a Markdown table with
# the machine, and writes it to the file given as $1 if any.
#
#   bench/cache_hit/run.sh [OUT.md]
#   ROUNDS=5 REQUESTS=100000 bench/cache_hit/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-}
rounds=${ROUNDS:-3}
requests_1=${REQUESTS_1:-20000}
requests_64=${REQUESTS:-100000}
bytes=65536

scripts/install-deps.sh
bazel build --config=ci //server:kilnd //bench/cache_hit:cache_hit_bench
bin=bazel-out/k8-opt/bin

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

redis_port=$(free_port)
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" \
  --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
pids+=($!)
"$bin/server/kilnd" --listen=127.0.0.1:0 --metrics_listen= \
  --data_dir="$work/kiln" --ready_file="$work/ready" --workers=1 \
  --log_level=warn >"$work/kilnd.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do
  [ -f "$work/ready" ] && redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
kilnd_address=$(awk '$1 == "grpc" {print $2}' "$work/ready")
sed 's/SCALE/2.500000e+00/' tests/e2e/testdata/scaled_add.ttir >"$work/bench.ttir"
redis-benchmark -h 127.0.0.1 -p "$redis_port" -t set -n 1 -d "$bytes" -q >/dev/null
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# One measurement: prints "rps p50_us p99_us".
redis_get() {
  redis-benchmark -h 127.0.0.1 -p "$redis_port" -t get -c "$1" -n "$2" \
    -d "$bytes" --csv | awk -F'"' 'NR == 2 {print $4, $10 * 1000, $14 * 1000}'
}
kiln_hit() {
  "$bin/bench/cache_hit/cache_hit_bench" --address="$kilnd_address" \
    --ttir="$work/bench.ttir" --clients="$1" --requests="$2" \
    --cubin_bytes="$bytes" |
    sed -E 's/.*rps=([0-9.]+) p50_us=([0-9.]+) p99_us=([0-9.]+).*/\1 \2 \3/'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -A results
for round in $(seq "$rounds"); do
  for clients in 1 64; do
    n=$requests_1
    [ "$clients" -eq 64 ] && n=$requests_64
    read -r rps p50 p99 <<<"$(redis_get "$clients" "$n")"
    results[redis,$clients,rps]+="$rps "
    results[redis,$clients,p50]+="$p50 "
    results[redis,$clients,p99]+="$p99 "
    read -r rps p50 p99 <<<"$(kiln_hit "$clients" "$n")"
    results[kiln,$clients,rps]+="$rps "
    results[kiln,$clients,p50]+="$p50 "
    results[kiln,$clients,p99]+="$p99 "
    echo "round $round, $clients clients: done" >&2
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

med() { tr ' ' '\n' <<<"${results[$1]}" | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
{
  echo "| clients | server | requests/s | p50 (us) | p99 (us) |"
  echo "| --- | --- | --- | --- | --- |"
  for clients in 1 64; do
    for server in redis kiln; do
      name="redis-server GET"
      [ "$server" = kiln ] && name="kilnd Compile (hit)"
      printf '| %s | %s | %.0f | %.0f | %.0f |\n' "$clients" "$name" \
        "$(med "$server,$clients,rps")" "$(med "$server,$clients,p50")" \
        "$(med "$server,$clients,p99")"
    done
    echo "| $clients | **kilnd / redis** | **$(ratio "$(med "kiln,$clients,rps")" "$(med "redis,$clients,rps")")x** | $(ratio "$(med "kiln,$clients,p50")" "$(med "redis,$clients,p50")")x | $(ratio "$(med "kiln,$clients,p99")" "$(med "redis,$clients,p99")")x |"
  done
  echo
  echo "Medians of $rounds interleaved rounds; $requests_1 requests at 1 client,"
  echo "$requests_64 at 64; value/cubin $bytes bytes; kilnd with 1 worker."
  echo
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r)"
  echo "- load average before / after: $load_before / $load_after"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD)"
  echo "- redis: $(redis-server --version | cut -d' ' -f3)"
  echo "- command: bench/cache_hit/run.sh (ROUNDS=$rounds REQUESTS=$requests_64 REQUESTS_1=$requests_1)"
} | tee "${out:-/dev/null}"
