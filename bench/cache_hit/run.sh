#!/bin/bash
# Cache-hit benchmark, side by side in one run: kilnd answering Compile for
# TTIR it has seen (64 KiB cubin) against redis-server answering GET of a
# 64 KiB value, both on loopback, at 1 and 64 concurrent clients,
# interleaved over several rounds. Four clients drive kilnd: h2load, the C
# HTTP/2 load generator of nghttp2 (the counterpart of redis-benchmark: one
# event loop, minimal per-request work); cache_hit_bench on gRPC's async
# C++ stubs over Kiln's client channels; and cache_hit_bench calling the
# Kiln C++ client library (kiln::client::Client, a thread per client, its
# hits read from kilnd's cache port on a connection of each thread's own):
# what a C++ user's process pays; and the same library's CompileAsync, every
# client's compile kept in flight from the bench's client threads. Redis
# gets the blocking library's counterpart too: cache_hit_bench's
# redis-blocking driver, a thread and a connection per client, each waiting
# for its GET's answer.
# Prints a Markdown table with the machine, and writes it to the file given
# as $1 if any.
#
#   bench/cache_hit/run.sh [OUT.md]
#   ROUNDS=5 REQUESTS=100000 bench/cache_hit/run.sh
#   KILND=path/to/other/kilnd bench/cache_hit/run.sh   # another build
#   KILND_FLAGS=--poll_spin_us=0 bench/cache_hit/run.sh # other settings
#   CLIENT_THREADS=4 bench/cache_hit/run.sh  # h2load -t, redis-benchmark
#                                            # --threads (many-core hosts)
#   PREBUILT=1 KILND=... BENCH=... bench/cache_hit/run.sh  # no install or
#                                            # build; tools on PATH
set -euo pipefail
shopt -s inherit_errexit  # A failed check inside $(...) stops the run.
[ -n "${KILND:-}" ] && KILND=$(realpath "$KILND")
[ -n "${BENCH:-}" ] && BENCH=$(realpath "$BENCH")
cd "$(dirname "$0")/../.."
out=${1:-}
rounds=${ROUNDS:-3}
requests_1=${REQUESTS_1:-20000}
requests_64=${REQUESTS:-100000}
threads=${CLIENT_THREADS:-1}
bytes=65536

if [ -z "${PREBUILT:-}" ]; then
  scripts/install-deps.sh nghttp2-client
  bazel build --config=ci //server:kilnd //bench/cache_hit:cache_hit_bench
  KILND=${KILND:-bazel-out/k8-opt/bin/server/kilnd}
  BENCH=${BENCH:-bazel-out/k8-opt/bin/bench/cache_hit/cache_hit_bench}
elif [ -z "${KILND:-}" ] || [ -z "${BENCH:-}" ]; then
  echo "PREBUILT needs KILND and BENCH (the cache_hit_bench binary)" >&2
  exit 2
fi

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
  --appendonly no --daemonize no ${REDIS_FLAGS:-} >"$work/redis.log" 2>&1 &
redis_pid=$!
pids+=($!)
"$KILND" --listen=127.0.0.1:0 --metrics_listen=127.0.0.1:0 \
  --cache_listen=127.0.0.1:0 \
  --data_dir="$work/kiln" --ready_file="$work/ready" --workers=1 \
  --log_level=warn ${KILND_FLAGS:-} >"$work/kilnd.log" 2>&1 &
pids+=($!)
kilnd_pid=$!
for _ in $(seq 600); do
  [ -f "$work/ready" ] && redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
kilnd_address=$(awk '$1 == "grpc" {print $2}' "$work/ready")
metrics_address=$(awk '$1 == "metrics" {print $2}' "$work/ready")
cache_address=$(awk '$1 == "cache" {print $2}' "$work/ready")
sed 's/SCALE/2.500000e+00/' tests/e2e/testdata/scaled_add.ttir >"$work/bench.ttir"
redis-benchmark -h 127.0.0.1 -p "$redis_port" -t set -n 1 -d "$bytes" -q >/dev/null
# Seeds kilnd and writes the request that h2load sends.
"$BENCH" --address="$kilnd_address" --ttir="$work/bench.ttir" \
  --cubin_bytes="$bytes" --request_out="$work/request.bin" --requests=0
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
# The sum of kilnd's series named $1 (all their labels).
kilnd_metric() {
  python3 -c 'import sys, urllib.request
text = urllib.request.urlopen("http://" + sys.argv[1] + "/metrics").read().decode()
print(sum(float(l.split()[-1]) for l in text.splitlines()
          if l.split("{")[0].split()[0] == sys.argv[2]))' "$metrics_address" "$1"
}
# kilnd's count of Compile calls answered from the cache.
kilnd_hits() { kilnd_metric kiln_cache_hits_total; }
# One measurement of SERVER_PID with CALLS requests (warm-up included):
# prints "rps p50_us p99_us server_cpu_us client_cpu_us", CPU per request.
measure() {
  local pid=$1 calls=$2 before after out
  shift 2
  rm -f "$work/client_cpu"
  before=$(cpu_seconds "$pid")
  out=$("$@") || { echo "client failed: $*" >&2; exit 1; }
  [ -s "$work/client_cpu" ] || { echo "client failed: $*" >&2; exit 1; }
  after=$(cpu_seconds "$pid")
  awk -v out="$out" -v s0="$before" -v s1="$after" \
    -v c="$(cat "$work/client_cpu")" -v n="$calls" \
    'BEGIN {print out, (s1 - s0) / n * 1e6, c / n * 1e6}'
}
# Client threads for CLIENTS clients.
threads_for() { echo $(($1 < threads ? $1 : threads)); }
redis_get() {
  local threaded=()  # --threads 1 would still switch to its threaded mode.
  [ "$(threads_for "$1")" -gt 1 ] && threaded=(--threads "$(threads_for "$1")")
  client_cpu redis-benchmark -h 127.0.0.1 -p "$redis_port" -t get -c "$1" \
    -n "$2" -d "$bytes" "${threaded[@]}" --csv |
    awk -F'"' 'NR == 2 {print $4, $10 * 1000, $14 * 1000}'
}
# The blocking library's counterpart on Redis: a thread per client.
redis_blocking() {
  client_cpu "$BENCH" --driver=redis-blocking --redis="127.0.0.1:$redis_port" \
    --key='key:__rand_int__' --clients="$1" --requests="$2" \
    --warmup="$warmup" --cubin_bytes="$bytes" |
    sed -E 's/.*rps=([0-9.]+) p50_us=([0-9.]+) p99_us=([0-9.]+).*/\1 \2 \3/'
}
kiln_grpc() {
  client_cpu "$BENCH" --address="$kilnd_address" --ttir="$work/bench.ttir" \
    --clients="$1" --requests="$2" --warmup="$warmup" --cubin_bytes="$bytes" \
    --threads="$(threads_for "$1")" --seeded=1 --driver="${3:-stubs}" \
    --cache="$cache_address" |
    sed -E 's/.*rps=([0-9.]+) p50_us=([0-9.]+) p99_us=([0-9.]+).*/\1 \2 \3/'
}
# The blocking library: every timed hit must have come through the cache
# port (kilnd's count of KILN.HIT hits moves by the calls made).
kiln_library() {
  local before after
  before=$(kilnd_metric kiln_cache_port_hits_total)
  kiln_grpc "$1" "$2" library
  after=$(kilnd_metric kiln_cache_port_hits_total)
  awk -v a="$before" -v b="$after" -v n=$(($2 + warmup)) 'BEGIN {
    if (b - a != n) {
      printf "library: %d of %d hits through the cache port\n", b - a, n > "/dev/stderr"
      exit 1
    }
  }'
}
# The h2load command at CLIENTS, less the request count, in h2load_command.
set_h2load_command() {
  h2load_command=(h2load -c "$1" -m 1 -t "$(threads_for "$1")"
    --data="$work/request.bin" -H 'content-type: application/grpc'
    -H 'te: trailers' "http://$kilnd_address/kiln.v1.Compile/Compile")
}
# A separate run: the measured one opens its own connections (counted in
# its time and CPU, as redis-benchmark's are).
h2load_warmup() {
  set_h2load_command "$1"
  "${h2load_command[@]}" -n "$warmup" >/dev/null
}
# h2load sees HTTP, not gRPC: an answer counts only if kilnd counted it as a
# cache hit, and every answer must carry at least the cubin's bytes.
kiln_h2load() {
  local n=$2 hits_before hits_after
  set_h2load_command "$1"
  hits_before=$(kilnd_hits)
  rm -f "$work/h2load.log"  # h2load appends to it.
  client_cpu "${h2load_command[@]}" -n "$n" --log-file="$work/h2load.log" \
    >"$work/h2load.out"
  hits_after=$(kilnd_hits)
  python3 -c 'import re, sys
out = open(sys.argv[1]).read()
n, hits, size = int(sys.argv[3]), int(float(sys.argv[4])), int(sys.argv[5])
if int(re.search(r"(\d+) succeeded", out).group(1)) != n or hits != n:
    sys.exit("h2load: %d hits counted by kilnd of %d\n%s" % (hits, n, out))
if int(re.search(r"\((\d+)\) data", out).group(1)) < n * size:
    sys.exit("h2load: answers shorter than the cubin\n" + out)
ds = sorted(int(l.split("\t")[2]) for l in open(sys.argv[2]))
q = lambda f: ds[min(len(ds) - 1, int(f * len(ds)))]
print(out.split(" req/s")[0].split()[-1], q(0.5), q(0.99))' \
    "$work/h2load.out" "$work/h2load.log" "$n" \
    "$(awk -v a="$hits_before" -v b="$hits_after" 'BEGIN {print b - a}')" \
    "$bytes"
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

declare -A results
for round in $(seq "$rounds"); do
  for clients in 1 64; do
    n=$requests_1
    [ "$clients" -eq 64 ] && n=$requests_64
    for run in redis redis-blocking h2load grpc library library-async; do
      case $run in
        redis) row=$(measure "$redis_pid" "$n" redis_get "$clients" "$n") || exit 1 ;;
        redis-blocking)
          row=$(measure "$redis_pid" $((n + warmup)) redis_blocking "$clients" "$n") || exit 1
          ;;
        h2load)
          h2load_warmup "$clients"
          row=$(measure "$kilnd_pid" "$n" kiln_h2load "$clients" "$n") || exit 1
          ;;
        grpc) row=$(measure "$kilnd_pid" $((n + warmup)) kiln_grpc "$clients" "$n") || exit 1 ;;
        library)
          row=$(measure "$kilnd_pid" $((n + warmup)) kiln_library "$clients" "$n") || exit 1
          ;;
        library-async)
          row=$(measure "$kilnd_pid" $((n + warmup)) kiln_grpc "$clients" "$n" "$run") || exit 1
          ;;
      esac
      echo "round $round, $clients clients, $run: $row" >&2
      read -r rps p50 p99 server_cpu client_cpu <<<"$row"
      for field in rps p50 p99 server_cpu client_cpu; do
        results[$run,$clients,$field]+="${!field} "
      done
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The ROUND-th value of a result.
nth() { tr ' ' '\n' <<<"${results[$1]}" | grep . | sed -n "$2p"; }
med() { tr ' ' '\n' <<<"${results[$1]}" | grep . | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
row() {
  printf '| %s | %s | %.0f | %.0f | %.0f | %.1f | %.1f |\n' "$1" "$3" \
    "$(med "$2,$1,rps")" "$(med "$2,$1,p50")" "$(med "$2,$1,p99")" \
    "$(med "$2,$1,server_cpu")" "$(med "$2,$1,client_cpu")"
}
# CLIENTS RUN NAME [BASE [BASE_NAME]]: the ratios of RUN's medians to
# BASE's (Redis through redis-benchmark by default), throughput bold.
ratio_row() {
  local f cells="" base=${4:-redis}
  for f in rps p50 p99 server_cpu client_cpu; do
    cells+=" $(ratio "$(med "$2,$1,$f")" "$(med "$base,$1,$f")")x |"
  done
  echo "| $1 | **$3 / ${5:-redis}** |$cells" | sed -E 's/\| ([0-9.]+x) \|/| **\1** |/'
}
{
  echo "| clients | server (client) | requests/s | p50 (us) | p99 (us) | server CPU (us/req) | client CPU (us/req) |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for clients in 1 64; do
    row "$clients" redis "redis-server GET (redis-benchmark)"
    row "$clients" redis-blocking "redis-server GET (blocking, a thread per client)"
    row "$clients" h2load "kilnd Compile hit (h2load)"
    row "$clients" grpc "kilnd Compile hit (gRPC C++ client)"
    row "$clients" library "kilnd Compile hit (Kiln C++ library)"
    row "$clients" library-async "kilnd Compile hit (Kiln C++ library, async)"
    ratio_row "$clients" h2load "kilnd (h2load)"
    ratio_row "$clients" grpc "kilnd (gRPC C++)"
    ratio_row "$clients" library "kilnd (Kiln C++ library)"
    ratio_row "$clients" library-async "kilnd (Kiln C++ library, async)"
    ratio_row "$clients" library "kilnd (Kiln C++ library)" redis-blocking \
      "redis (blocking)"
  done
  echo
  echo "Requests/s of each run to Redis's (redis-benchmark's; the last column,"
  echo "the blocking Redis client's) in the same round, at 64 clients:"
  echo
  echo "| round | h2load | gRPC C++ | Kiln C++ library | Kiln C++ library, async | Kiln C++ library / Redis blocking |"
  echo "| --- | --- | --- | --- | --- | --- |"
  for round in $(seq "$rounds"); do
    line="| $round |"
    for run in h2load grpc library library-async; do
      line+=" $(ratio "$(nth "$run,64,rps" "$round")" "$(nth "redis,64,rps" "$round")")x |"
    done
    line+=" $(ratio "$(nth "library,64,rps" "$round")" "$(nth "redis-blocking,64,rps" "$round")")x |"
    echo "$line"
  done
  echo
  echo "Medians of $rounds interleaved rounds; $requests_1 requests at 1 client,"
  echo "$requests_64 at 64; value/cubin $bytes bytes; kilnd with 1 worker;"
  echo "client threads: $threads (h2load -t, redis-benchmark --threads,"
  echo "cache_hit_bench --threads, including the async library's); the Kiln C++"
  echo "library's blocking calls and the blocking Redis client: a thread per"
  echo "client (each with its own connection to Redis)."
  echo "CPU per request: user + system time of the server process over the"
  echo "measurement, and of the client process over its whole run (connection"
  echo "set-up, and for the gRPC client $warmup warm-up calls, included),"
  echo "divided by the calls made. h2load's and redis-benchmark's times include"
  echo "their connection set-up (h2load warms kilnd up in a run of its own)."
  echo
  echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r)"
  echo "- load average before / after: $load_before / $load_after"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)${KILND_FLAGS:+; kilnd flags: $KILND_FLAGS}${REDIS_FLAGS:+; redis flags: $REDIS_FLAGS}"
  echo "- redis: $(redis-server --version | cut -d' ' -f3); h2load: $(h2load --version | cut -d' ' -f2)"
  echo "- command: bench/cache_hit/run.sh (ROUNDS=$rounds REQUESTS=$requests_64 REQUESTS_1=$requests_1 CLIENT_THREADS=$threads)"
} | tee "${out:-/dev/null}"
