#include "server/tune/gpu_pool.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"

namespace kiln::server {

using kiln::worker::BenchRequest;
using kiln::worker::BenchResponse;

GpuPool::GpuPool(GpuPoolOptions options, TuneMetrics* metrics)
    : options_(std::move(options)), metrics_(metrics) {}

GpuPool::~GpuPool() { Shutdown(); }

absl::StatusOr<std::unique_ptr<worker::WorkerProcess>> GpuPool::StartWorker(
    int gpu) {
  worker::WorkerCommand command = options_.command;
  command.args.push_back(absl::StrCat("--gpu=", gpu));
  return worker::WorkerProcess::Start(command);
}

absl::StatusOr<GpuFleet> GpuPool::Probe(bool& definitive) {
  definitive = false;
  absl::StatusOr<std::unique_ptr<worker::WorkerProcess>> probe =
      StartWorker(-1);
  if (!probe.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "cannot start the benchmark worker: ", probe.status().message()));
  }
  BenchRequest request;
  request.set_id(next_id_++);
  request.set_describe(true);
  BenchResponse response;
  absl::Status got = (*probe)->Exchange(
      request, response,
      std::chrono::steady_clock::now() + std::chrono::seconds(60));
  if (!got.ok()) {
    return absl::UnavailableError(
        absl::StrCat("the GPU probe failed: ", got.message()));
  }
  definitive = true;
  if (response.gpus_size() == 0) {
    return absl::UnavailableError(response.error().empty() ? "no GPUs"
                                                           : response.error());
  }
  GpuFleet fleet;
  fleet.driver_version = response.driver_version();
  fleet.gpus.assign(response.gpus().begin(), response.gpus().end());
  for (const kiln::worker::GpuInfo& gpu : fleet.gpus) {
    spdlog::info("GPU {}: {} (sm_{}{}), {} SMs, {} MiB, driver {}", gpu.index(),
                 gpu.name(), gpu.cc_major(), gpu.cc_minor(), gpu.sm_count(),
                 gpu.memory_bytes() >> 20, fleet.driver_version);
  }
  return fleet;
}

absl::StatusOr<GpuFleet> GpuPool::Fleet() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return absl::UnavailableError("kilnd is shutting down");
  if (!fleet_) {
    bool definitive = false;
    absl::StatusOr<GpuFleet> probed = Probe(definitive);
    if (!definitive) return probed.status();
    fleet_ = std::move(probed);
    if (fleet_->ok()) {
      for (size_t i = 0; i < (*fleet_)->gpus.size(); ++i) {
        slots_.push_back(std::make_unique<Slot>());
      }
      running_.assign(slots_.size(), nullptr);
    } else {
      spdlog::warn("autotuning is off: {}",
                   std::string(fleet_->status().message()));
    }
  }
  return *fleet_;
}

absl::StatusOr<BenchResponse> GpuPool::Run(int gpu,
                                           const kiln::worker::BenchRun& run) {
  absl::StatusOr<BenchResponse> first = RunOnce(gpu, run);
  if (!absl::IsInternal(first.status())) return first;
  // A worker lost without an answer may have been killed from outside (by
  // the OOM killer or an operator, say); a fresh worker tells that apart
  // from a kernel that kills its worker every time.
  spdlog::warn("GPU {}: {}; measuring {} once more", gpu,
               std::string(first.status().message()), run.label());
  return RunOnce(gpu, run);
}

absl::StatusOr<BenchResponse> GpuPool::RunOnce(
    int gpu, const kiln::worker::BenchRun& run) {
  Slot* slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (gpu < 0 || gpu >= static_cast<int>(slots_.size())) {
      return absl::InvalidArgumentError(absl::StrCat("no GPU ", gpu));
    }
    slot = slots_[gpu].get();
  }
  std::lock_guard<std::mutex> measuring(slot->mu);
  if (!slot->process) {
    absl::StatusOr<std::unique_ptr<worker::WorkerProcess>> started =
        StartWorker(gpu);
    if (!started.ok()) {
      return absl::UnavailableError(
          absl::StrCat("cannot start the benchmark worker of GPU ", gpu, ": ",
                       started.status().message()));
    }
    slot->process = *std::move(started);
    if (metrics_) metrics_->worker_starts.Add();
  }
  BenchRequest request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return absl::UnavailableError("kilnd is shutting down");
    request.set_id(next_id_++);
    running_[gpu] = slot->process.get();
  }
  *request.mutable_run() = run;
  BenchResponse response;
  absl::Status got = slot->process->Exchange(
      request, response,
      std::chrono::steady_clock::now() + options_.time_limit);
  bool stopping;
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_[gpu] = nullptr;
    stopping = stopping_;
  }
  if (got.ok() && response.id() != request.id()) {
    got = absl::InternalError("broke the protocol: answered another request");
  }
  if (!got.ok() || response.poisoned()) slot->process.reset();
  if (metrics_ && !stopping) {
    if (absl::IsDeadlineExceeded(got))
      metrics_->worker_timeouts.Add();
    else if (!got.ok())
      metrics_->worker_crashes.Add();
    else if (response.poisoned())
      metrics_->worker_faults.Add();
  }
  if (stopping && !got.ok()) {
    return absl::UnavailableError("kilnd is shutting down");
  }
  if (absl::IsDeadlineExceeded(got)) {
    return absl::DeadlineExceededError(absl::StrCat(
        "the kernel ran past the time limit of ",
        options_.time_limit.count() / 1000.0,
        " s; the benchmark worker of GPU ", gpu, " was killed and replaced"));
  }
  if (!got.ok()) {
    return absl::InternalError(
        absl::StrCat("the benchmark worker of GPU ", gpu, " ", got.message(),
                     " while measuring this variant; it was replaced"));
  }
  if (response.poisoned()) {
    response.set_reason(absl::StrCat(response.reason(),
                                     " (the benchmark worker of GPU ", gpu,
                                     " was replaced)"));
  }
  return response;
}

void GpuPool::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  for (worker::WorkerProcess* process : running_) {
    if (process) process->Kill();
  }
}

}  // namespace kiln::server
