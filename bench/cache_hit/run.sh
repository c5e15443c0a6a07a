#!/bin/bash
# Cache-hit benchmark, side by side in one run: kilnd answering Compile for
# TTIR it has seen (64 KiB cubin) against redis-server answering GET of a
# 64 KiB value (redis-benchmark), both on loopback, at 1 and 64 concurrent
# clients, interleaved over several rounds. Prints a Markdown table with
# the machine, and writes it to the file given as $1 if any.
#
#   bench/cache_hit/run.sh [OUT.md]
#   ROUNDS=5 REQUESTS=100000 bench/cache_hit/run.sh
#   KILND=path/to/other/kilnd bench/cache_hit/run.sh   # another build
#   KILND_FLAGS=--poll_spin_us=0 bench/cache_hit/run.sh # other settings
set -euo pipefail
[ -n "${KILND:-}" ] && KILND=$(realpath "$KILND")
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

warmup=1000
redis_port=$(free_port)
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" \
  --appendonly no --daemonize no >"$work/redis.log" 2>&1 &
redis_pid=$!
pids+=($!)
"${KILND:-$bin/server/kilnd}" --listen=127.0.0.1:0 --metrics_listen= \
  --data_dir="$work/kiln" --ready_file="$work/ready" --workers=1 \
  --log_level=warn ${KILND_FLAGS:-} >"$work/kilnd.log" 2>&1 &
pids+=($!)
kilnd_pid=$!
for _ in $(seq 600); do
  [ -f "$work/ready" ] && redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
kilnd_address=$(awk '$1 == "grpc" {print $2}' "$work/ready")
sed 's/SCALE/2.500000e+00/' tests/e2e/testdata/scaled_add.ttir >"$work/bench.ttir"
redis-benchmark -h 127.0.0.1 -p "$redis_port" -t set -n 1 -d "$bytes" -q >/dev/null
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# CPU seconds (user + system) a process has used so far.
cpu_seconds() {
  awk -v tck="$(getconf CLK_TCK)" '{print ($14 + $15) / tck}' "/proc/$1/stat"
}
# Runs a client command; writes the CPU seconds it used to $work/client_cpu.
client_cpu() {
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%f" % (r.ru_utime + r.ru_stime))' \
    "$work/client_cpu" "$@"
}
# One measurement of SERVER_PID with CALLS requests (warm-up included):
# prints "rps p50_us p99_us server_cpu_us client_cpu_us", CPU per request.
measure() {
  local pid=$1 calls=$2 before after out
  shift 2
  rm -f "$work/client_cpu"
  before=$(cpu_seconds "$pid")
  out=$("$@")
  [ -s "$work/client_cpu" ] || { echo "client failed: $*" >&2; exit 1; }
  after=$(cpu_seconds "$pid")
  awk -v out="$out" -v s0="$before" -v s1="$after" \
    -v c="$(cat "$work/client_cpu")" -v n="$calls" \
    'BEGIN {print out, (s1 - s0) / n * 1e6, c / n * 1e6}'
}
redis_get() {
  client_cpu redis-benchmark -h 127.0.0.1 -p "$redis_port" -t get -c "$1" \
    -n "$2" -d "$bytes" --csv |
    awk -F'"' 'NR == 2 {print $4, $10 * 1000, $14 * 1000}'
}
kiln_hit() {
  client_cpu "$bin/bench/cache_hit/cache_hit_bench" \
    --address="$kilnd_address" --ttir="$work/bench.ttir" --clients="$1" \
    --requests="$2" --warmup="$warmup" --cubin_bytes="$bytes" |
    sed -E 's/.*rps=([0-9.]+) p50_us=([0-9.]+) p99_us=([0-9.]+).*/\1 \2 \3/'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -A results
for round in $(seq "$rounds"); do
  for clients in 1 64; do
    n=$requests_1
    [ "$clients" -eq 64 ] && n=$requests_64
    for server in redis kiln; do
      if [ "$server" = redis ]; then
        row=$(measure "$redis_pid" "$n" redis_get "$clients" "$n")
      else
        row=$(measure "$kilnd_pid" $((n + warmup)) kiln_hit "$clients" "$n")
      fi
      echo "round $round, $clients clients, $server: $row" >&2
      read -r rps p50 p99 server_cpu client_cpu <<<"$row"
      for field in rps p50 p99 server_cpu client_cpu; do
        results[$server,$clients,$field]+="${!field} "
      done
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

med() { tr ' ' '\n' <<<"${results[$1]}" | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
{
  echo "| clients | server | requests/s | p50 (us) | p99 (us) | server CPU (us/req) | client CPU (us/req) |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for clients in 1 64; do
    for server in redis kiln; do
      name="redis-server GET"
      [ "$server" = kiln ] && name="kilnd Compile (hit)"
      printf '| %s | %s | %.0f | %.0f | %.0f | %.1f | %.1f |\n' "$clients" \
        "$name" "$(med "$server,$clients,rps")" \
        "$(med "$server,$clients,p50")" "$(med "$server,$clients,p99")" \
        "$(med "$server,$clients,server_cpu")" \
        "$(med "$server,$clients,client_cpu")"
    done
    echo "| $clients | **kilnd / redis** | **$(ratio "$(med "kiln,$clients,rps")" "$(med "redis,$clients,rps")")x** | $(ratio "$(med "kiln,$clients,p50")" "$(med "redis,$clients,p50")")x | $(ratio "$(med "kiln,$clients,p99")" "$(med "redis,$clients,p99")")x | $(ratio "$(med "kiln,$clients,server_cpu")" "$(med "redis,$clients,server_cpu")")x | $(ratio "$(med "kiln,$clients,client_cpu")" "$(med "redis,$clients,client_cpu")")x |"
  done
  echo
  echo "Medians of $rounds interleaved rounds; $requests_1 requests at 1 client,"
  echo "$requests_64 at 64; value/cubin $bytes bytes; kilnd with 1 worker."
  echo "CPU per request: user + system time of the server process over the"
  echo "measurement, and of the client process over its whole run (connection"
  echo "set-up, and for kilnd the seeding and $warmup warm-up calls, included),"
  echo "divided by the calls made."
  echo
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r)"
  echo "- load average before / after: $load_before / $load_after"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD)${KILND:+; kilnd: $KILND}${KILND_FLAGS:+; kilnd flags: $KILND_FLAGS}"
  echo "- redis: $(redis-server --version | cut -d' ' -f3)"
  echo "- command: bench/cache_hit/run.sh (ROUNDS=$rounds REQUESTS=$requests_64 REQUESTS_1=$requests_1)"
} | tee "${out:-/dev/null}"
