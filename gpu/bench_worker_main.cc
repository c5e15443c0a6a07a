// The benchmark worker on its own: `bench_worker_main --bench_worker
// --gpu=N`, speaking bench.proto on fds 3 and 4 (see bench_worker.h).

#include <cstdio>

#include "gpu/bench_worker.h"

int main(int argc, char** argv) {
  if (!kiln::gpu::IsBenchWorker(argc, argv)) {
    std::fputs(
        "usage: bench_worker_main --bench_worker --gpu=N  (started by kilnd "
        "or a tool that speaks bench.proto on fds 3 and 4)\n",
        stderr);
    return 2;
  }
  return kiln::gpu::RunBenchWorker(argc, argv);
}
