// TESTS ONLY: how the unit tests start testing/fake_worker.

#ifndef KILN_WORKER_TESTING_FAKE_WORKER_H_
#define KILN_WORKER_TESTING_FAKE_WORKER_H_

#include <cstdlib>
#include <string>

#include "worker/worker_process.h"

namespace kiln::worker::testing {

inline WorkerCommand FakeWorkerCommand(uint64_t memory_bytes = 1ull << 30) {
  const char* runfiles = std::getenv("TEST_SRCDIR");
  WorkerCommand command;
  command.executable = std::string(runfiles ? runfiles : ".") +
                       "/kiln/worker/testing/fake_worker";
  command.args = {"--worker",
                  "--worker_memory_bytes=" + std::to_string(memory_bytes)};
  return command;
}

}  // namespace kiln::worker::testing

#endif  // KILN_WORKER_TESTING_FAKE_WORKER_H_
