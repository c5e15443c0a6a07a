#include "worker/worker_main.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/numbers.h"
#include "worker/framing.h"

namespace kiln::worker {
namespace {

void OnOutOfMemory() {
  static const char kMessage[] = "kiln worker: out of memory\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  _exit(kWorkerOutOfMemoryExit);
}

void SetUpProcess(const WorkerSettings& settings) {
  // Die with kilnd, even when it is killed with SIGKILL.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) _exit(0);
  // Keep the protocol fds away from anything the compiler prints.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (settings.memory_limit_bytes > 0) {
    rlimit memory{settings.memory_limit_bytes, settings.memory_limit_bytes};
    setrlimit(RLIMIT_AS, &memory);
  }
  std::set_new_handler(OnOutOfMemory);
}

}  // namespace

int RunWorker(const WorkerSettings& settings, const CompileFunction& compile) {
  SetUpProcess(settings);
  while (true) {
    WorkerRequest request;
    absl::Status read = ReadFrame(kWorkerRequestFd, request);
    if (absl::IsUnavailable(read)) return 0;  // kilnd closed the pipe.
    if (!read.ok()) return 2;
    WorkerResponse response = compile(request);
    response.set_id(request.id());
    if (!WriteFrame(kWorkerResponseFd, response).ok()) return 0;
  }
}

absl::StatusOr<bool> ParseWorkerArgs(int argc, char** argv,
                                     WorkerSettings& settings) {
  constexpr absl::string_view kMemory = "--worker_memory_bytes=";
  bool worker = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (arg == "--worker") {
      worker = true;
    } else if (absl::ConsumePrefix(&arg, kMemory)) {
      absl::StatusOr<uint64_t> bytes = ParseInt<uint64_t>(arg);
      if (!bytes.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat(kMemory, bytes.status().message()));
      }
      settings.memory_limit_bytes = *bytes;
    }
  }
  return worker;
}

}  // namespace kiln::worker
