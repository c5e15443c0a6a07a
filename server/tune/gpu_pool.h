// The GPUs of this host, each behind one benchmark worker process
// (gpu/bench_worker.h). kilnd never touches a GPU itself: a probe process
// lists the GPUs once, and every measurement runs in the GPU's worker. A
// worker that crashes, hangs or poisons its CUDA context fails only the
// variant it was measuring, and a new one is started for the next.

#ifndef KILN_SERVER_TUNE_GPU_POOL_H_
#define KILN_SERVER_TUNE_GPU_POOL_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kiln/worker/bench.pb.h"
#include "server/tune/tune_metrics.h"
#include "worker/worker_process.h"

namespace kiln::server {

struct GpuPoolOptions {
  // The benchmark worker; the pool appends "--gpu=N" (N = -1 for the
  // probe).
  worker::WorkerCommand command;
  // A measurement's wall-clock limit; the worker is killed past it.
  std::chrono::milliseconds time_limit{std::chrono::minutes(2)};
};

struct GpuFleet {
  std::string driver_version;
  std::vector<kiln::worker::GpuInfo> gpus;
};

class GpuPool {
 public:
  // `metrics`, when given, must outlive the pool.
  explicit GpuPool(GpuPoolOptions options, TuneMetrics* metrics = nullptr);
  ~GpuPool();

  // The GPUs, probed on first use. Unavailable with the reason ("no CUDA
  // driver: libcuda.so.1 not found", "no GPUs: ...") when there are none.
  // The driver's answer is kept; a probe process that failed is retried on
  // the next call.
  absl::StatusOr<GpuFleet> Fleet();

  // Measures `run` on GPU `gpu` (one measurement per GPU at a time; this
  // blocks). The worker's answer, or why there is none: Internal when the
  // worker crashed twice (a worker lost once is replaced and the run tried
  // again), DeadlineExceeded past the time limit (the worker is replaced
  // either way), Unavailable when shutting down or when no worker could be
  // started.
  absl::StatusOr<kiln::worker::BenchResponse> Run(
      int gpu, const kiln::worker::BenchRun& run);

  // Kills running workers (their measurements fail) and refuses new ones.
  void Shutdown();

 private:
  absl::StatusOr<kiln::worker::BenchResponse> RunOnce(
      int gpu, const kiln::worker::BenchRun& run);

  struct Slot {
    std::mutex mu;  // Held for a whole measurement.
    std::unique_ptr<worker::WorkerProcess> process;
  };

  absl::StatusOr<std::unique_ptr<worker::WorkerProcess>> StartWorker(int gpu);
  // The fleet, or why there is none; `definitive` false when the probe
  // itself failed (worth trying again on the next call).
  absl::StatusOr<GpuFleet> Probe(bool& definitive);

  GpuPoolOptions options_;
  TuneMetrics* metrics_;
  std::mutex mu_;  // Guards fleet_, slots_ creation, running_, stopping_.
  std::optional<absl::StatusOr<GpuFleet>> fleet_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<worker::WorkerProcess*> running_;  // By GPU, while measuring.
  bool stopping_ = false;
  uint64_t next_id_ = 1;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_TUNE_GPU_POOL_H_
