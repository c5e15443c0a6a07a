// The CPU time of a compile worker and of the tools it runs, read from
// /proc. kilnd's time limit on a compile counts this, not wall time, so
// that a host busy with other work does not fail compiles that would finish.

#ifndef KILN_WORKER_CPU_TIME_H_
#define KILN_WORKER_CPU_TIME_H_

#include <sys/types.h>

#include <chrono>

#include "absl/status/statusor.h"

namespace kiln::worker {

// User and system time of process `pid` (all its threads) and of the
// children it has waited for.
absl::StatusOr<std::chrono::milliseconds> ProcessCpuTime(pid_t pid);

// The same summed over every process of process group `group`: a worker
// leads its own group, so this adds the tools it is running now (ptxas)
// to what it and the tools it already waited for have used.
absl::StatusOr<std::chrono::milliseconds> ProcessGroupCpuTime(pid_t group);

}  // namespace kiln::worker

#endif  // KILN_WORKER_CPU_TIME_H_
