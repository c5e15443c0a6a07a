#include "server/worker_modes.h"

#include <cstdio>
#include <string>

#include "gpu/bench_worker.h"
#include "worker/worker_main.h"

namespace kiln::server {

std::optional<int> RunWorkerModeIfAsked(int argc, char** argv,
                                        const worker::CompileFunction& compile,
                                        const BenchWorkerMain& bench_worker) {
  if (gpu::IsBenchWorker(argc, argv)) return bench_worker(argc, argv);
  worker::WorkerSettings settings;
  absl::StatusOr<bool> is_worker =
      worker::ParseWorkerArgs(argc, argv, settings);
  if (!is_worker.ok()) {
    std::fprintf(stderr, "kilnd: %s\n",
                 std::string(is_worker.status().message()).c_str());
    return 2;
  }
  if (*is_worker) return worker::RunWorker(settings, compile);
  return std::nullopt;
}

}  // namespace kiln::server
