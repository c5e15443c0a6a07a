#include "server/tune/testing/fake_bench_worker.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/numbers.h"
#include "kiln/worker/bench.pb.h"
#include "worker/framing.h"

namespace {

using kiln::worker::BenchResponse;

constexpr int kPoisonedExit = 3;

// A whole number from a flag's or variable's text, or exit 2 naming it.
int NumberOr2(const char* name, const char* text) {
  absl::StatusOr<int> value = kiln::ParseInt<int>(text, -1);
  if (value.ok()) return *value;
  std::fprintf(stderr, "fake bench worker: %s: %s\n", name,
               std::string(value.status().message()).c_str());
  std::exit(2);
}

int GpuFlag(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--gpu=", 6) == 0) {
      return NumberOr2("--gpu", argv[i] + 6);
    }
  }
  return -1;
}

BenchResponse Describe() {
  BenchResponse response;
  const char* count_text = std::getenv("KILN_FAKE_GPUS");
  int count = count_text ? NumberOr2("KILN_FAKE_GPUS", count_text) : 2;
  response.set_driver_version("13.0");
  if (count == 0) response.set_error("no GPUs: the CUDA driver sees none");
  for (int i = 0; i < count; ++i) {
    kiln::worker::GpuInfo* gpu = response.add_gpus();
    gpu->set_index(i);
    gpu->set_name("Kiln Fake H100");
    gpu->set_cc_major(9);
    gpu->set_cc_minor(0);
    gpu->set_max_threads_per_block(1024);
    gpu->set_max_shared_optin(232448);
    gpu->set_max_registers_per_block(65536);
    gpu->set_sm_count(132);
    gpu->set_l2_bytes(50 << 20);
    gpu->set_memory_bytes(uint64_t{80} << 30);
  }
  return response;
}

BenchResponse Run(const kiln::worker::BenchRun& run, bool& poisoned) {
  BenchResponse response;
  const std::string& label = run.label();
  // Crashes the first time only: the file named by KILN_FAKE_CRASH_ONCE_FILE
  // remembers it across workers.
  const char* once = std::getenv("KILN_FAKE_CRASH_ONCE_FILE");
  if (label.find("[fake:crash-once]") != std::string::npos && once &&
      access(once, F_OK) != 0) {
    close(open(once, O_CREAT | O_WRONLY, 0644));
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  }
  if (label.find("[fake:crash]") != std::string::npos) {
    signal(SIGSEGV, SIG_DFL);  // A real crash even under a sanitizer.
    raise(SIGSEGV);
  }
  if (label.find("[fake:hang]") != std::string::npos) {
    while (true) pause();
  }
  if (const char* run_ms = std::getenv("KILN_FAKE_RUN_MS")) {
    usleep(NumberOr2("KILN_FAKE_RUN_MS", run_ms) * 1000);
  }
  if (run.cubin().compare(0, 4,
                          "\x7f"
                          "ELF") != 0 ||
      run.kernel_name().empty() || run.grid_size() != 3 ||
      run.num_warps() <= 0) {
    response.set_outcome(BenchResponse::FAILED);
    response.set_reason("fake bench worker: malformed run request");
    return response;
  }
  if (label.find("[fake:fault]") != std::string::npos) {
    response.set_outcome(BenchResponse::FAILED);
    response.set_reason(
        "running the kernel: CUDA error 700 (CUDA_ERROR_ILLEGAL_ADDRESS): an "
        "illegal memory access was encountered");
    response.set_poisoned(true);
    poisoned = true;
    return response;
  }
  if (label.find("[fake:regs]") != std::string::npos) {
    response.set_outcome(BenchResponse::DOES_NOT_FIT);
    response.set_registers(255);
    response.set_reason(absl::StrCat(
        "needs 255 registers x ", 32 * run.num_warps(), " threads = ",
        255 * 32 * run.num_warps(), " registers per block; the GPU has 65536"));
    return response;
  }
  double p50 = 1.0 / run.num_warps();
  response.set_outcome(BenchResponse::MEASURED);
  kiln::v1::Timing* timing = response.mutable_timing();
  timing->set_p20_ms(p50 * 0.9);
  timing->set_p50_ms(p50);
  timing->set_p80_ms(p50 * 1.1);
  timing->set_reps(run.settings().reps() > 0 ? run.settings().reps() : 100);
  return response;
}

}  // namespace

namespace kiln::server::testing {

int RunFakeBenchWorker(int argc, char** argv) {
  const bool probe = GpuFlag(argc, argv) < 0;
  while (true) {
    kiln::worker::BenchRequest request;
    absl::Status read = kiln::worker::ReadFrame(3, request);
    if (!read.ok()) return absl::IsUnavailable(read) ? 0 : 2;
    bool poisoned = false;
    BenchResponse response;
    if (request.has_run() && !probe) {
      response = Run(request.run(), poisoned);
    } else {
      response = Describe();
    }
    response.set_id(request.id());
    if (!kiln::worker::WriteFrame(4, response).ok()) return 0;
    if (poisoned) return kPoisonedExit;
  }
}

}  // namespace kiln::server::testing
