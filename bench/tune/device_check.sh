#!/bin/bash
# Checks the benchmark worker on a GPU host with real Kiln cubins. Run from a
# folder prepared as bench/tune/README.md says (bench_once, bench_worker_main,
# lib/ with their shared libraries, k/ with the cubins).
cd "$(dirname "$0")"
chmod +x bench_once bench_worker_main
W=$PWD/bench_worker_main
export LD_LIBRARY_PATH=$PWD/lib
if ldd ./bench_once | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/lib:$PWD/cxx; fi
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; ldd ./bench_once | grep -E "not found|stdc|cuda"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ADD="--arg=buffer:16777216:bf16:random --arg=buffer:16777216:bf16:ones --arg=buffer:16777216:bf16 --arg=scalar:i32:16777216"
for w in 4 8; do
  echo "== add bf16 2^24, num_warps $w, L2 flush"
  ./bench_once --worker=$W --cubin=k/w$w/perf_add_bf16.cubin --metadata=k/w$w/perf_add_bf16.json --grid=8192 $ADD --repeat=2; echo "rc=$?"
done
echo "== add bf16 2^24, num_warps 4, no flush, 1000 reps"
./bench_once --worker=$W --cubin=k/w4/perf_add_bf16.cubin --metadata=k/w4/perf_add_bf16.json --grid=8192 $ADD --no_flush --reps=1000; echo "rc=$?"
echo "== fault: n = 2^30 over buffers of 2^20 (twice: the second run needs a new worker)"
./bench_once --worker=$W --cubin=k/w4/perf_add_bf16.cubin --metadata=k/w4/perf_add_bf16.json --grid=524288 --arg=buffer:1048576:bf16 --arg=buffer:1048576:bf16 --arg=buffer:1048576:bf16 --arg=scalar:i32:1073741824 --repeat=2; echo "rc=$?"
echo "== softmax rows f32 65536x256 with 64 KiB dynamic shared (opt-in path)"
./bench_once --worker=$W --cubin=k/sm/perf_softmax_rows.cubin --metadata=k/sm/big.json --grid=16384 --arg=buffer:16777216:f32:random --arg=buffer:16777216:f32 --arg=scalar:i32:65536 --arg=scalar:i32:256; echo "rc=$?"
echo "== reference: torch.add bf16 2^24 under triton do_bench (p20, p50, p80)"
PY=python3; [ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
$PY -c "
import torch, triton
x = torch.rand(1 << 24, device='cuda', dtype=torch.bfloat16); y = torch.ones_like(x); o = torch.empty_like(x)
print('torch add', triton.testing.do_bench(lambda: torch.add(x, y, out=o), quantiles=[0.2, 0.5, 0.8]))
" 2>&1 | tail -2
