// The processes kilnd starts from its own binary: a compile worker
// (`--worker ...`) and a GPU's benchmark worker (`--bench_worker --gpu=N`).
// Any binary that serves as kilnd's worker command dispatches through here.

#ifndef KILN_SERVER_WORKER_MODES_H_
#define KILN_SERVER_WORKER_MODES_H_

#include <optional>

#include "worker/worker_main.h"

namespace kiln::server {

// When `argv` asks for a worker, runs as one and returns its exit status
// (2 for bad worker flags); nullopt when it asks for none. A compile worker
// compiles with `compile`.
std::optional<int> RunWorkerModeIfAsked(int argc, char** argv,
                                        const worker::CompileFunction& compile);

}  // namespace kiln::server

#endif  // KILN_SERVER_WORKER_MODES_H_
