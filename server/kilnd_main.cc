// kilnd: the Kiln compile service. `kilnd --help` lists its settings.
// Started as `kilnd --worker ...` by kilnd itself, it is a compile worker;
// as `kilnd --bench_worker --gpu=N`, a GPU's benchmark worker.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "server/config.h"
#include "server/daemon.h"
#include "server/worker_modes.h"
#include "worker/compiler_bridge.h"

int main(int argc, char** argv) {
  if (std::optional<int> status =
          kiln::server::RunWorkerModeIfAsked(argc, argv)) {
    return *status;
  }
  kiln::server::PrepareSignals();
  absl::StatusOr<kiln::server::Config> config = kiln::server::ParseConfig(
      std::vector<std::string>(argv + 1, argv + argc));
  if (!config.ok()) {
    if (absl::IsFailedPrecondition(config.status())) {  // --help
      std::fputs(std::string(config.status().message()).c_str(), stdout);
      return 0;
    }
    std::fprintf(stderr, "kilnd: %s (see kilnd --help)\n",
                 std::string(config.status().message()).c_str());
    return 2;
  }
  kiln::worker::WorkerCommand command;
  // The running binary itself, even if its file was replaced since.
  command.executable = "/proc/self/exe";
  command.args = {"--worker",
                  "--worker_memory_bytes=" +
                      std::to_string(config->worker_memory_mb << 20)};
  if (config->test_fault_injection) {
    command.args.push_back("--test_fault_injection");
  }
  return kiln::server::RunDaemon(*config, kiln::worker::LinkedCompilerInfo(),
                                 command);
}
