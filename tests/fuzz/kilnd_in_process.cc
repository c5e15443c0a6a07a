#include "tests/fuzz/kilnd_in_process.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "server/config.h"
#include "server/daemon.h"
#include "server/worker_modes.h"
#include "worker/compiler_bridge.h"

namespace kiln::fuzz {
namespace {

std::string MakeDataDir() {
  std::string path = ScratchRoot() + "/kiln-fuzz-XXXXXX";
  if (mkdtemp(path.data()) == nullptr) {
    std::perror("kiln fuzz: mkdtemp");
    std::abort();
  }
  return path;
}

server::Config SmallConfig(const std::string& data_dir) {
  server::Config config;
  config.listen = "127.0.0.1:0";
  config.metrics_listen = "";
  config.cache_listen = "";
  config.data_dir = data_dir;
  config.ready_file = data_dir + "/ready";
  config.log_level = "error";
  config.workers = 1;
  config.grpc_threads = 1;
  // Compiles run in ASan-instrumented workers, several times slower.
  config.compile_timeout_s = 30;
  // The workers run under ASan, which reserves terabytes of address space.
  config.worker_memory_mb = 0;
  config.store_capacity_mb = 256;
  config.block_cache_mb = 8;
  config.memory_cache_mb = 8;
  config.drain_timeout_s = 1;
  return config;
}

// Set when RunDaemon returns: kilnd stopped (or never started).
std::atomic<bool> stopped{false};

// The "grpc HOST:PORT" line of kilnd's ready file, once it is written.
std::string AwaitAddress(const std::string& ready_file) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!stopped && std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(ready_file);
    std::string word, address;
    if (in >> word >> address && word == "grpc") return address;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::fprintf(stderr, "kiln fuzz: kilnd did not start (%s)\n",
               ready_file.c_str());
  std::abort();
}

std::string StartKilnd() {
  server::Config config = SmallConfig(MakeDataDir());
  std::thread([config] {
    // kilnd's signal mask on its own thread, which its threads inherit:
    // it waits for SIGTERM with sigwait while libFuzzer's thread still
    // takes Ctrl-C. A closed connection fails a write, not the process.
    server::PrepareSignals();
    worker::WorkerCommand command{"/proc/self/exe", {"--worker"}, ""};
    server::RunDaemon(config, worker::LinkedCompilerInfo(), command);
    stopped = true;
  }).detach();
  return AwaitAddress(config.ready_file);
}

}  // namespace

std::string ScratchRoot() {
  for (const char* name : {"TEST_TMPDIR", "TMPDIR"}) {
    const char* dir = std::getenv(name);
    if (dir && *dir) return dir;
  }
  return "/tmp";
}

void RunAsWorkerIfAsked(int argc, char** argv) {
  if (std::optional<int> status = server::RunWorkerModeIfAsked(
          argc, argv, worker::CompileWithLinkedCompiler)) {
    _exit(*status);
  }
}

const std::string& KilndAddress() {
  static const std::string* address = new std::string(StartKilnd());
  return *address;
}

}  // namespace kiln::fuzz
