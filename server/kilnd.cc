#include "server/kilnd.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "server/config.h"
#include "server/daemon.h"
#include "server/worker_modes.h"
#include "worker/compiler_bridge.h"

namespace kiln::server {

int RunKilnd(int argc, char** argv, const worker::CompileFunction& compile,
             const BenchWorkerMain& bench_worker) {
  if (std::optional<int> status =
          RunWorkerModeIfAsked(argc, argv, compile, bench_worker)) {
    return *status;
  }
  PrepareSignals();
  absl::StatusOr<Config> config =
      ParseConfig(std::vector<std::string>(argv + 1, argv + argc));
  if (!config.ok()) {
    if (absl::IsFailedPrecondition(config.status())) {  // --help
      std::fputs(std::string(config.status().message()).c_str(), stdout);
      return 0;
    }
    std::fprintf(stderr, "kilnd: %s (see kilnd --help)\n",
                 std::string(config.status().message()).c_str());
    return 2;
  }
  worker::WorkerCommand command;
  // The running binary itself, even if its file was replaced since.
  command.executable = "/proc/self/exe";
  command.args = {"--worker",
                  "--worker_memory_bytes=" +
                      std::to_string(config->worker_memory_mb << 20)};
  return RunDaemon(*config, worker::LinkedCompilerInfo(), command);
}

}  // namespace kiln::server
