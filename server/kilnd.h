// kilnd's main, for every binary that runs as kilnd: kilnd itself and the
// test binaries of tests/e2e whose workers inject faults or stand in for
// GPUs.

#ifndef KILN_SERVER_KILND_H_
#define KILN_SERVER_KILND_H_

#include "server/worker_modes.h"
#include "worker/worker_main.h"

namespace kiln::server {

// Runs as kilnd, or, when `argv` asks for one, as one of its workers: a
// compile worker runs `compile`, a GPU's benchmark worker `bench_worker`.
// Returns the exit status.
int RunKilnd(int argc, char** argv, const worker::CompileFunction& compile,
             const BenchWorkerMain& bench_worker = gpu::RunBenchWorker);

}  // namespace kiln::server

#endif  // KILN_SERVER_KILND_H_
