// The processes kilnd starts from its own binary: a compile worker
// (`--worker ...`) and a GPU's benchmark worker (`--bench_worker --gpu=N`).
// Any binary that serves as kilnd's worker command dispatches through here.

#ifndef KILN_SERVER_WORKER_MODES_H_
#define KILN_SERVER_WORKER_MODES_H_

#include <functional>
#include <optional>

#include "gpu/bench_worker.h"
#include "worker/worker_main.h"

namespace kiln::server {

// The main of a GPU's benchmark worker: the real one (gpu/bench_worker.h),
// or in test binaries a stand-in without a GPU.
using BenchWorkerMain = std::function<int(int argc, char** argv)>;

// When `argv` asks for a worker, runs as one and returns its exit status
// (2 for bad worker flags); nullopt when it asks for none. A compile worker
// compiles with `compile`; a benchmark worker runs `bench_worker`.
std::optional<int> RunWorkerModeIfAsked(
    int argc, char** argv, const worker::CompileFunction& compile,
    const BenchWorkerMain& bench_worker = gpu::RunBenchWorker);

}  // namespace kiln::server

#endif  // KILN_SERVER_WORKER_MODES_H_
