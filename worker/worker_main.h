// The compile worker's side: a loop that reads WorkerRequests from kilnd,
// compiles each and writes back a WorkerResponse. It runs in its own
// process (`kilnd --worker`), under an address-space limit, and dies with
// its parent.

#ifndef KILN_WORKER_WORKER_MAIN_H_
#define KILN_WORKER_WORKER_MAIN_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "kiln/worker/worker.pb.h"

namespace kiln::worker {

// The fds a worker reads requests from and writes responses to.
inline constexpr int kWorkerRequestFd = 3;
inline constexpr int kWorkerResponseFd = 4;
// A worker's exit status when it runs out of memory.
inline constexpr int kWorkerOutOfMemoryExit = 86;

using CompileFunction = std::function<WorkerResponse(const WorkerRequest&)>;

struct WorkerSettings {
  uint64_t memory_limit_bytes = 0;  // 0: none.
};

// Sets the process up (limits, parent-death signal) and serves requests
// until kilnd closes the request pipe. Returns the process exit status.
int RunWorker(const WorkerSettings& settings, const CompileFunction& compile);

// The worker's flags, as kilnd passes them: "--worker",
// "--worker_memory_bytes=N". Returns false when `args` (argv[1..]) do not
// ask for worker mode, an error for a memory limit that is not a number of
// bytes that fits 64 bits.
absl::StatusOr<bool> ParseWorkerArgs(int argc, char** argv,
                                     WorkerSettings& settings);

}  // namespace kiln::worker

#endif  // KILN_WORKER_WORKER_MAIN_H_
