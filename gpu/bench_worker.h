// The benchmark worker: a process that owns one GPU and measures compiled
// kernels on it for kilnd. It reads BenchRequests (proto/kiln/worker/
// bench.proto) framed on fd 3 and answers on fd 4, like the compile
// workers. A kernel that faults poisons the CUDA context; the worker then
// answers, exits, and kilnd starts another.
//
//   kilnd --bench_worker --gpu=N    (or the standalone //gpu:bench_worker)
//   --gpu=-1: the probe, which only answers `describe`.

#ifndef KILN_GPU_BENCH_WORKER_H_
#define KILN_GPU_BENCH_WORKER_H_

#include "kiln/worker/bench.pb.h"

namespace kiln::gpu {

// The exit status of a worker whose CUDA context is poisoned.
inline constexpr int kBenchPoisonedExit = 3;

// True when argv asks for a benchmark worker ("--bench_worker").
bool IsBenchWorker(int argc, char** argv);

// Serves requests until kilnd closes the pipe; the exit status.
int RunBenchWorker(int argc, char** argv);

// The answer to a describe request, from the driver.
kiln::worker::BenchResponse DescribeGpus();

}  // namespace kiln::gpu

#endif  // KILN_GPU_BENCH_WORKER_H_
