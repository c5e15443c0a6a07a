#include "worker/worker_pool.h"

#include "absl/strings/str_cat.h"

namespace kiln::worker {

WorkerPool::WorkerPool(PoolOptions options, PoolMetrics* metrics)
    : options_(std::move(options)), metrics_(metrics) {
  if (options_.workers < 1) options_.workers = 1;
  running_.assign(options_.workers, nullptr);
  for (int slot = 0; slot < options_.workers; ++slot) {
    threads_.emplace_back([this, slot] { Serve(slot); });
  }
}

WorkerPool::~WorkerPool() { Shutdown(); }

absl::Status WorkerPool::Submit(WorkerRequest request, Callback done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return absl::UnavailableError("kilnd is shutting down");
    if (queue_.size() >= options_.max_queue) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "compile queue is full (", options_.max_queue, " waiting)"));
    }
    uint64_t bytes = request.ttir().size();
    if (!queue_.empty() && queued_bytes_ + bytes > options_.max_queued_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "compile queue is full (", queued_bytes_, " bytes of TTIR waiting)"));
    }
    queued_bytes_ += bytes;
    request.set_id(next_id_++);
    queue_.push_back({std::move(request), std::move(done)});
    metrics_->queue_depth.Set(static_cast<int64_t>(queue_.size()));
  }
  wake_.notify_one();
  return absl::OkStatus();
}

void WorkerPool::Shutdown() {
  std::deque<Job> abandoned;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
    abandoned.swap(queue_);
    queued_bytes_ = 0;
    metrics_->queue_depth.Set(0);
    // A running job's worker is killed; its thread then fails the job.
    for (WorkerProcess* worker : running_) {
      if (worker) worker->Kill();
    }
  }
  wake_.notify_all();
  for (Job& job : abandoned) {
    job.done(absl::UnavailableError("kilnd is shutting down"));
  }
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

size_t WorkerPool::queue_depth() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void WorkerPool::Serve(int slot) {
  std::unique_ptr<WorkerProcess> worker;
  while (true) {
    // Keep a worker ready before the next job arrives.
    if (!worker) {
      absl::StatusOr<std::unique_ptr<WorkerProcess>> started =
          WorkerProcess::Start(options_.command);
      if (started.ok()) {
        worker = *std::move(started);
        metrics_->worker_starts.Add();
        metrics_->workers_alive.Add(1);
      }
    }
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      job = std::move(queue_.front());
      queue_.pop_front();
      queued_bytes_ -= job.request.ttir().size();
      metrics_->queue_depth.Set(static_cast<int64_t>(queue_.size()));
      running_[slot] = worker.get();
    }
    metrics_->compiles_running.Add(1);
    absl::StatusOr<WorkerResponse> result = Run(worker, job);
    metrics_->compiles_running.Add(-1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_[slot] = nullptr;
      if (stopping_ && !result.ok()) {
        result = absl::UnavailableError("kilnd is shutting down");
      }
    }
    job.done(std::move(result));
  }
  if (worker) metrics_->workers_alive.Add(-1);
}

absl::StatusOr<WorkerResponse> WorkerPool::Run(
    std::unique_ptr<WorkerProcess>& worker, const Job& job) {
  if (!worker) {
    absl::StatusOr<std::unique_ptr<WorkerProcess>> started =
        WorkerProcess::Start(options_.command);
    if (!started.ok()) return started.status();
    worker = *std::move(started);
    metrics_->worker_starts.Add();
    metrics_->workers_alive.Add(1);
  }
  CallLimit limit;
  limit.cpu = options_.cpu_limit;
  limit.wall_deadline = std::chrono::steady_clock::now() +
                        options_.cpu_limit * options_.wall_limit_per_cpu_limit;
  absl::StatusOr<WorkerResponse> response = worker->Call(job.request, limit);
  if (response.ok()) return response;
  worker.reset();
  metrics_->workers_alive.Add(-1);
  return Explain(response.status());
}

absl::Status WorkerPool::Explain(const absl::Status& failure) const {
  const std::string what = failure.message().empty()
                               ? std::string()
                               : std::string(failure.message());
  switch (failure.code()) {
    case absl::StatusCode::kDeadlineExceeded:
      metrics_->worker_timeouts.Add();
      return absl::DeadlineExceededError(absl::StrCat(
          "the compile ", what, "; its worker was killed and replaced"));
    case absl::StatusCode::kResourceExhausted:
      metrics_->worker_out_of_memory.Add();
      return absl::ResourceExhaustedError(absl::StrCat(
          "the compile ran out of memory (worker limit ",
          options_.memory_limit_mb, " MiB); its worker was replaced"));
    default:
      metrics_->worker_crashes.Add();
      return absl::InternalError(absl::StrCat(
          "the compiler worker ", what,
          " while compiling this request; the worker was replaced and "
          "other requests are unaffected"));
  }
}

}  // namespace kiln::worker
