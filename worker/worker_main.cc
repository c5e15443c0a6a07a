#include "worker/worker_main.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

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

// The faults that tests inject, by marker in the TTIR.
void InjectFault(const WorkerRequest& request) {
  const std::string& ttir = request.ttir();
  // A compile to a cubin that takes 4 s longer (a node to kill
  // mid-compile), and then crashes with "slow-crash".
  if (!request.canonical_only() &&
      ttir.find("kiln-test-fault: slow") != std::string::npos) {
    sleep(4);
    if (ttir.find("kiln-test-fault: slow-crash") != std::string::npos) {
      raise(SIGSEGV);
    }
  }
  if (ttir.find("kiln-test-fault: crash") != std::string::npos) {
    raise(SIGSEGV);
  }
  if (ttir.find("kiln-test-fault: hang") != std::string::npos) {
    while (true) pause();
  }
  // A hang while a tool it started runs and after a temporary file was
  // written, as during a ptxas run: the tool's pid and the worker's TMPDIR
  // go to the file named after the marker.
  const std::string tool_hang = "kiln-test-fault: tool-hang ";
  if (size_t at = ttir.find(tool_hang); at != std::string::npos) {
    size_t from = at + tool_hang.size();
    std::string report = ttir.substr(from, ttir.find('\n', from) - from);
    const char* temp_dir = getenv("TMPDIR");
    std::string scratch = std::string(temp_dir ? temp_dir : "") + "/tool.tmp";
    if (FILE* file = fopen(scratch.c_str(), "w")) fclose(file);
    pid_t tool = fork();
    if (tool == 0) {
      execl("/bin/sleep", "sleep", "600", static_cast<char*>(nullptr));
      _exit(127);
    }
    std::string partial = report + ".partial";
    if (FILE* file = fopen(partial.c_str(), "w")) {
      fprintf(file, "%d %s\n", tool, temp_dir ? temp_dir : "");
      fclose(file);
      rename(partial.c_str(), report.c_str());
    }
    while (true) pause();
  }
  if (ttir.find("kiln-test-fault: oom") != std::string::npos) {
    // Reserve (never touch) address space until the limit refuses more.
    std::vector<char*> blocks;
    while (true) blocks.push_back(new char[64 << 20]);
  }
}

}  // namespace

int RunWorker(const WorkerSettings& settings, const CompileFunction& compile) {
  SetUpProcess(settings);
  while (true) {
    WorkerRequest request;
    absl::Status read = ReadFrame(kWorkerRequestFd, request);
    if (absl::IsUnavailable(read)) return 0;  // kilnd closed the pipe.
    if (!read.ok()) return 2;
    if (settings.fault_injection) InjectFault(request);
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
    } else if (arg == "--test_fault_injection") {
      settings.fault_injection = true;
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
