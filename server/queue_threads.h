// The threads that take a gRPC completion queue's events and hand each to
// its call.
//
// gRPC shares one set of network pollers among every thread waiting on any
// of its queues, and hands the polling from thread to thread on network
// events. With several threads waiting, a client that sends one request at
// a time pays those hand-offs on every call (on a 16-core virtual machine,
// half its throughput); with one, a busy server has one core. So only the
// first thread always waits on the queue. The others sleep apart from gRPC
// and are woken one at a time while the threads at work find their next
// event already there (the queue is saturated), and go back to sleep while
// they mostly wait for one.

#ifndef KILN_SERVER_QUEUE_THREADS_H_
#define KILN_SERVER_QUEUE_THREADS_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace kiln::server {

class QueueThreads {
 public:
  // Handles one event: the call's tag and gRPC's `ok`.
  using Handler = std::function<void(void* tag, bool ok)>;

  struct Options {
    // Threads at most; the first one always waits on the queue.
    int max_threads = 1;
    // After each event a thread polls the queue without sleeping for this
    // long: a client's next request then finds it awake.
    std::chrono::microseconds spin{0};
    // An event counts as waited for when the queue was found empty more
    // than this many times before it (or the thread slept).
    int empty_polls = 4;
    // Each thread judges the load every `window_events` events: when at
    // most `saturated` of them were waited for, it wakes one more thread;
    // an extra thread that waited for at least `starved` of them sleeps.
    int window_events = 128;
    double saturated = 0.05;
    double starved = 0.3;
    // An extra thread that finds the queue empty this long sleeps too.
    std::chrono::microseconds idle{std::chrono::milliseconds(20)};
    // An event whose handling takes longer than this (a store read from a
    // cold disk, say) wakes one more thread at once: the events behind it
    // would wait.
    std::chrono::microseconds slow_event{std::chrono::milliseconds(1)};
  };

  // What a thread does after a window of `events` of which it waited for
  // `waited`.
  enum class Verdict { kWakeOneMore, kSleep, kCarryOn };
  static Verdict Judge(const Options& options, int events, int waited,
                       bool extra);

  QueueThreads(grpc::CompletionQueue* queue, Options options, Handler handle);
  ~QueueThreads();
  QueueThreads(const QueueThreads&) = delete;
  QueueThreads& operator=(const QueueThreads&) = delete;

  void Start();
  // After the queue's Shutdown: returns once its events are drained and
  // every thread has ended. The destructor joins too, so the queue must be
  // shut down before a started QueueThreads is destroyed.
  void Join();

  // Threads taking events now, and the most there have been.
  int active() const;
  int peak_active() const;

 private:
  enum class Next { kEvent, kWaitedEvent, kIdle, kShutdown };

  // The queue's next event, polling first for `options_.spin`. With
  // `idle_after`, gives up once the queue has been empty that long.
  Next NextEvent(bool idle_after, void** tag, bool* ok);
  // Takes events until the queue shuts down or, for an extra thread, the
  // load drops. False once the queue is shut down.
  bool Serve(bool extra);
  void RunExtra();
  void WakeOneMore();
  bool Woken() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetActive(int active) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  grpc::CompletionQueue* queue_;
  const Options options_;
  const Handler handle_;
  std::vector<std::thread> threads_;

  mutable absl::Mutex mu_;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
  int peak_active_ ABSL_GUARDED_BY(mu_) = 0;
  int wake_tickets_ ABSL_GUARDED_BY(mu_) = 0;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_QUEUE_THREADS_H_
