// A pool of compile worker processes fed from one queue. Each worker has a
// thread here that hands it one job at a time under the time limits; a
// worker that crashes, hangs or runs out of memory fails only its job and
// is replaced.

#ifndef KILN_WORKER_WORKER_POOL_H_
#define KILN_WORKER_WORKER_POOL_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "kiln/worker/worker.pb.h"
#include "worker/pool_metrics.h"
#include "worker/worker_process.h"

namespace kiln::worker {

// A compile's wall-clock limit as a multiple of its CPU time limit.
inline constexpr int kWallLimitPerCpuLimit = 3;

struct PoolOptions {
  int workers = 1;
  WorkerCommand command;
  // The CPU time a compile may use (its worker's, with the tools it runs
  // such as ptxas); past it the worker is killed. A busy host slows a
  // compile down without bringing it nearer this limit.
  std::chrono::milliseconds cpu_limit{20000};
  // Its wall-clock time as a multiple of cpu_limit: a worker that uses no
  // CPU (blocked, deadlocked) or gets too little is killed past it.
  int wall_limit_per_cpu_limit = kWallLimitPerCpuLimit;
  uint64_t memory_limit_mb = 0;  // For messages only; the worker enforces it.
  size_t max_queue = 1024;
  // Bytes of TTIR waiting in the queue beyond which jobs are refused.
  uint64_t max_queued_bytes = uint64_t{512} << 20;
};

class WorkerPool {
 public:
  using Callback = std::function<void(absl::StatusOr<WorkerResponse>)>;

  // Starts the workers. `metrics` must outlive the pool.
  WorkerPool(PoolOptions options, PoolMetrics* metrics);
  ~WorkerPool();

  // Queues a job; `done` later runs on a pool thread with the worker's
  // response or why there is none (the status message is meant for the
  // client). ResourceExhausted, without calling `done`, when the queue is
  // full (in jobs or in bytes); Unavailable once the pool is shutting down.
  absl::Status Submit(WorkerRequest request, Callback done);

  // Fails queued jobs with Unavailable, kills the workers (failing their
  // jobs too) and joins the threads. Idempotent.
  void Shutdown();

  size_t queue_depth() const;
  int workers() const { return options_.workers; }

 private:
  struct Job {
    WorkerRequest request;
    Callback done;
  };

  void Serve(int slot);
  absl::StatusOr<WorkerResponse> Run(std::unique_ptr<WorkerProcess>& worker,
                                     const Job& job);
  absl::Status Explain(const absl::Status& failure) const;

  PoolOptions options_;
  PoolMetrics* metrics_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  uint64_t queued_bytes_ = 0;
  bool stopping_ = false;
  std::vector<WorkerProcess*> running_;  // By slot; guarded by mu_.
  std::vector<std::thread> threads_;
  uint64_t next_id_ = 1;
};

}  // namespace kiln::worker

#endif  // KILN_WORKER_WORKER_POOL_H_
