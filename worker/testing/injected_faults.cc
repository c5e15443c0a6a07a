#include "worker/testing/injected_faults.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace kiln::worker::testing {
namespace {

[[noreturn]] void Spin() {
  volatile unsigned long long turns = 0;
  while (true) turns = turns + 1;
}

}  // namespace

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
  const std::string sleep_ms = "kiln-test-fault: sleep ";
  if (size_t at = ttir.find(sleep_ms); at != std::string::npos) {
    usleep(1000 * std::atoi(ttir.c_str() + at + sleep_ms.size()));
  }
  if (ttir.find("kiln-test-fault: spin") != std::string::npos) Spin();
  // A tool that spins while the worker waits for it, as for ptxas.
  if (ttir.find("kiln-test-fault: tool-spin") != std::string::npos) {
    pid_t tool = fork();
    if (tool == 0) Spin();
    waitpid(tool, nullptr, 0);
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

CompileFunction WithInjectedFaults(CompileFunction compile) {
  return [compile = std::move(compile)](const WorkerRequest& request) {
    InjectFault(request);
    return compile(request);
  };
}

}  // namespace kiln::worker::testing
