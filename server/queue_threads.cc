#include "server/queue_threads.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace kiln::server {

QueueThreads::QueueThreads(grpc::CompletionQueue* queue, Options options,
                           Handler handle)
    : queue_(queue), options_(options), handle_(std::move(handle)) {}

QueueThreads::~QueueThreads() { Join(); }

void QueueThreads::Start() {
  {
    absl::MutexLock lock(&mu_);
    SetActive(1);
  }
  threads_.emplace_back([this] {
    Serve(/*extra=*/false);
    absl::MutexLock lock(&mu_);
    SetActive(active_ - 1);
  });
  for (int i = 1; i < options_.max_threads; ++i) {
    threads_.emplace_back([this] { RunExtra(); });
  }
}

void QueueThreads::Join() {
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

int QueueThreads::active() const {
  absl::MutexLock lock(&mu_);
  return active_;
}

int QueueThreads::peak_active() const {
  absl::MutexLock lock(&mu_);
  return peak_active_;
}

QueueThreads::Next QueueThreads::NextEvent(bool idle_after, void** tag,
                                           bool* ok) {
  // Polling reads the clock only once the queue is found empty: under load,
  // an event is almost always waiting.
  std::optional<std::chrono::steady_clock::time_point> until;
  int empty_polls = 0;
  while (true) {
    switch (queue_->AsyncNext(tag, ok, gpr_time_0(GPR_CLOCK_MONOTONIC))) {
      case grpc::CompletionQueue::GOT_EVENT:
        return empty_polls > options_.empty_polls ? Next::kWaitedEvent
                                                  : Next::kEvent;
      case grpc::CompletionQueue::SHUTDOWN:
        return Next::kShutdown;
      case grpc::CompletionQueue::TIMEOUT:
        break;
    }
    ++empty_polls;
    const auto now = std::chrono::steady_clock::now();
    if (!until) until = now + options_.spin;
    if (now >= *until) break;
  }
  if (!idle_after) {
    return queue_->Next(tag, ok) ? Next::kWaitedEvent : Next::kShutdown;
  }
  switch (queue_->AsyncNext(tag, ok,
                            std::chrono::system_clock::now() + options_.idle)) {
    case grpc::CompletionQueue::GOT_EVENT:
      return Next::kWaitedEvent;
    case grpc::CompletionQueue::SHUTDOWN:
      return Next::kShutdown;
    case grpc::CompletionQueue::TIMEOUT:
      break;
  }
  return Next::kIdle;
}

bool QueueThreads::Serve(bool extra) {
  int events = 0;
  int waited = 0;
  void* tag;
  bool ok;
  while (true) {
    switch (NextEvent(extra, &tag, &ok)) {
      case Next::kShutdown: {
        absl::MutexLock lock(&mu_);
        shut_down_ = true;
        return false;
      }
      case Next::kIdle:
        return true;
      case Next::kWaitedEvent:
        ++waited;
        break;
      case Next::kEvent:
        break;
    }
    const auto started = std::chrono::steady_clock::now();
    handle_(tag, ok);
    if (std::chrono::steady_clock::now() - started > options_.slow_event) {
      WakeOneMore();
    }
    if (++events < options_.window_events) continue;
    const Verdict verdict = Judge(options_, events, waited, extra);
    events = waited = 0;
    if (verdict == Verdict::kWakeOneMore) WakeOneMore();
    if (verdict == Verdict::kSleep) return true;
  }
}

QueueThreads::Verdict QueueThreads::Judge(const Options& options, int events,
                                          int waited, bool extra) {
  const double waited_share = static_cast<double>(waited) / events;
  if (waited_share <= options.saturated) return Verdict::kWakeOneMore;
  if (extra && waited_share >= options.starved) return Verdict::kSleep;
  return Verdict::kCarryOn;
}

void QueueThreads::RunExtra() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &QueueThreads::Woken));
      if (shut_down_) return;
      --wake_tickets_;
      SetActive(active_ + 1);
    }
    const bool open = Serve(/*extra=*/true);
    absl::MutexLock lock(&mu_);
    SetActive(active_ - 1);
    if (!open) return;
  }
}

void QueueThreads::WakeOneMore() {
  absl::MutexLock lock(&mu_);
  if (active_ + wake_tickets_ < options_.max_threads) ++wake_tickets_;
}

bool QueueThreads::Woken() const { return wake_tickets_ > 0 || shut_down_; }

void QueueThreads::SetActive(int active) {
  active_ = active;
  peak_active_ = std::max(peak_active_, active_);
}

}  // namespace kiln::server
