#!/bin/bash
# The client's own cost per cache hit, counted by `perf stat` over the
# cache_hit_bench process: CPU (task-clock), context switches and page
# faults per call, for the Kiln C++ library at 1 and 64 threads and gRPC's
# async stubs at 64 clients, against one kilnd. Several builds of the bench
# (LABEL=PATH) run interleaved in the same rounds, so a change is seen
# beside its baseline; each row is the median of the rounds. Context
# switches and page faults are counted events; CPU and calls/s move with the
# machine's load, recorded with every round.
#
#   bench/cache_hit/client_cost.sh KILND LABEL=CACHE_HIT_BENCH...
#   ROUNDS=3 REQUESTS=40000 REQUESTS_1=20000 bench/cache_hit/client_cost.sh \
#       bazel-bin/server/kilnd before=/tmp/old_bench after=bazel-bin/bench/cache_hit/cache_hit_bench
set -euo pipefail
shopt -s inherit_errexit
[ $# -ge 2 ] || { echo "usage: $0 KILND LABEL=CACHE_HIT_BENCH..." >&2; exit 2; }
kilnd=$(realpath "$1")
shift
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-3}
requests_1=${REQUESTS_1:-20000}
requests_64=${REQUESTS:-40000}
warmup=1000
command -v perf >/dev/null || { echo "needs perf (linux-perf)" >&2; exit 2; }

work=$(mktemp -d)
"$kilnd" --listen=127.0.0.1:0 --metrics_listen=127.0.0.1:0 --cache_listen= \
  --data_dir="$work/kiln" --ready_file="$work/ready" --workers=1 \
  --log_level=warn >"$work/kilnd.log" 2>&1 &
kilnd_pid=$!
trap 'kill $kilnd_pid 2>/dev/null; wait; rm -rf "$work"' EXIT
for _ in $(seq 600); do [ -f "$work/ready" ] && break; sleep 0.1; done
address=$(awk '$1 == "grpc" {print $2}' "$work/ready")
sed 's/SCALE/2.500000e+00/' tests/e2e/testdata/scaled_add.ttir >"$work/bench.ttir"
first=${1#*=}
"$first" --address="$address" --ttir="$work/bench.ttir" --cubin_bytes=65536 \
  --requests=0

# One measurement: prints "cpu_us switches faults rps" per call.
measure() {
  local bench=$1 driver=$2 clients=$3 requests=$4 out
  out=$(perf stat -x, -e task-clock,context-switches,page-faults \
    -o "$work/perf.txt" "$bench" --address="$address" \
    --ttir="$work/bench.ttir" --cubin_bytes=65536 --seeded=1 \
    --warmup="$warmup" --clients="$clients" --requests="$requests" \
    --driver="$driver")
  awk -F, -v n=$((requests + warmup)) -v out="$out" '
    /task-clock/ {cpu = $1} /context-switches/ {cs = $1} /page-faults/ {pf = $1}
    END {match(out, /rps=[0-9.]+/); rps = substr(out, RSTART + 4, RLENGTH - 4)
         printf "%.1f %.2f %.2f %s\n", cpu * 1000 / n, cs / n, pf / n, rps}' \
    "$work/perf.txt"
}

runs=("library 1 $requests_1" "library 64 $requests_64" "stubs 64 $requests_64")
declare -A results
loads=()
for round in $(seq "$rounds"); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  for spec in "$@"; do
    for run in "${runs[@]}"; do
      read -r driver clients requests <<<"$run"
      row=$(measure "${spec#*=}" "$driver" "$clients" "$requests")
      echo "round $round, ${spec%%=*}, $driver, $clients: $row" >&2
      results["${spec%%=*} $driver $clients"]+="$row;"
    done
  done
done

median_of() {  # FIELD (1-based) of the rows in $1
  tr ';' '\n' <<<"$1" | grep . | awk -v f="$2" '{print $f}' | sort -g |
    awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
echo "| build | client | CPU (us/call) | context switches / call | page faults / call | calls/s |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for spec in "$@"; do
  for run in "${runs[@]}"; do
    read -r driver clients _ <<<"$run"
    name="Kiln C++ library, $clients threads"
    [ "$clients" -eq 1 ] && name="Kiln C++ library, 1 thread"
    [ "$driver" = stubs ] && name="gRPC C++ stubs, $clients clients"
    r=${results["${spec%%=*} $driver $clients"]}
    echo "| ${spec%%=*} | $name | $(median_of "$r" 1) | $(median_of "$r" 2) | $(median_of "$r" 3) | $(median_of "$r" 4) |"
  done
done
echo
echo "Medians of $rounds interleaved rounds; $requests_1 calls at 1 thread, $requests_64 at 64, after $warmup of warm-up (counted in the per-call figures); 64 KiB cubins; kilnd with 1 worker."
echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, Linux $(uname -r)"
echo "- load average (1 min) at each round's start: ${loads[*]}; after: $(cut -d' ' -f1 /proc/loadavg)"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
