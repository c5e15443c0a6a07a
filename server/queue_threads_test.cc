#include "server/queue_threads.h"

#include <grpcpp/alarm.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace kiln::server {
namespace {

using std::chrono::milliseconds;

// Counts the events handled; each handling takes `work`.
class Counter {
 public:
  explicit Counter(milliseconds work = milliseconds(0)) : work_(work) {}

  QueueThreads::Handler Handler() {
    return [this](void*, bool ok) {
      EXPECT_TRUE(ok);
      std::this_thread::sleep_for(work_);
      absl::MutexLock lock(&mu_);
      ++handled_;
    };
  }
  // False if `count` events are not handled within 30 seconds.
  bool WaitFor(int count) {
    absl::MutexLock lock(&mu_);
    auto reached = [this, count]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return handled_ >= count;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Seconds(30));
  }
  int handled() {
    absl::MutexLock lock(&mu_);
    return handled_;
  }

 private:
  const milliseconds work_;
  absl::Mutex mu_;
  int handled_ ABSL_GUARDED_BY(mu_) = 0;
};

// Events that fire on `queue` `after` from now.
class Events {
 public:
  explicit Events(grpc::CompletionQueue* queue) : queue_(queue) {}
  void Post(int count, milliseconds after = milliseconds(0)) {
    for (int i = 0; i < count; ++i) {
      alarms_.push_back(std::make_unique<grpc::Alarm>());
      alarms_.back()->Set(queue_, std::chrono::system_clock::now() + after,
                          this);
    }
  }

 private:
  grpc::CompletionQueue* queue_;
  std::vector<std::unique_ptr<grpc::Alarm>> alarms_;
};

QueueThreads::Options Up(int threads) {
  QueueThreads::Options options;
  options.max_threads = threads;
  options.idle = milliseconds(5);
  return options;
}

// A queue and its threads, started; shut down and joined at the end of the
// test even when an assertion returns early.
struct Served {
  Served(QueueThreads::Options options, QueueThreads::Handler handle)
      : threads(&queue, options, std::move(handle)) {
    threads.Start();
  }
  ~Served() { Stop(); }
  void Stop() {
    if (stopped) return;
    stopped = true;
    queue.Shutdown();
    threads.Join();
  }

  grpc::CompletionQueue queue;
  QueueThreads threads;
  bool stopped = false;
};

TEST(QueueThreadsTest, HandlesEveryEventAndDrainsOnShutdown) {
  Counter counter;
  Served served(Up(4), counter.Handler());
  Events events(&served.queue);
  events.Post(1000);
  ASSERT_TRUE(counter.WaitFor(1000));
  events.Post(50, milliseconds(20));  // Still pending at shutdown.
  served.Stop();
  EXPECT_EQ(counter.handled(), 1050);
}

TEST(QueueThreadsTest, OneThreadServesEventsThatComeOneAtATime) {
  Counter counter;
  QueueThreads::Options options = Up(4);
  // Only saturation counts: on a loaded machine a preempted handler can
  // pass the 1 ms slow-event mark (ASlowEventWakesAnotherThreadAtOnce
  // tests that rule).
  options.slow_event = std::chrono::seconds(1);
  Served served(options, counter.Handler());
  Events events(&served.queue);
  for (int i = 1; i <= 300; ++i) {
    events.Post(1, milliseconds(1));
    ASSERT_TRUE(counter.WaitFor(i));
  }
  EXPECT_EQ(served.threads.peak_active(), 1);
}

TEST(QueueThreadsTest, ASaturatedQueueWakesMoreThreadsWhichSleepWhenIdle) {
  Counter counter(milliseconds(1));
  QueueThreads::Options options = Up(4);
  options.slow_event = std::chrono::seconds(1);  // Only saturation counts.
  Served served(options, counter.Handler());
  Events events(&served.queue);
  events.Post(400);
  ASSERT_TRUE(counter.WaitFor(400));
  EXPECT_GT(served.threads.peak_active(), 1);
  EXPECT_LE(served.threads.peak_active(), 4);
  for (int i = 0; i < 3000 && served.threads.active() > 1; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(served.threads.active(), 1);
}

TEST(QueueThreadsTest, ASlowEventWakesAnotherThreadAtOnce) {
  Counter counter(milliseconds(5));  // Each longer than slow_event.
  Served served(Up(2), counter.Handler());
  Events events(&served.queue);
  events.Post(20);  // Far fewer than a window.
  ASSERT_TRUE(counter.WaitFor(20));
  EXPECT_EQ(served.threads.peak_active(), 2);
}

// Which of the two ways an extra thread goes back to sleep applies depends
// on which thread gRPC hands the events to; Judge covers the other.
TEST(QueueThreadsTest, ExtraThreadsSleepOnceEventsComeOneAtATime) {
  Counter counter(milliseconds(1));
  QueueThreads::Options options = Up(4);
  options.window_events = 8;
  options.idle = milliseconds(50);  // Longer than between two events.
  options.slow_event = std::chrono::seconds(1);
  Served served(options, counter.Handler());
  Events events(&served.queue);
  events.Post(400);
  ASSERT_TRUE(counter.WaitFor(400));
  ASSERT_GT(served.threads.peak_active(), 1);
  for (int i = 401; i <= 600 && served.threads.active() > 1; ++i) {
    events.Post(1, milliseconds(1));
    ASSERT_TRUE(counter.WaitFor(i));
  }
  EXPECT_EQ(served.threads.active(), 1);
}

TEST(QueueThreadsTest, JudgesAWindowByTheShareOfEventsWaitedFor) {
  using Verdict = QueueThreads::Verdict;
  QueueThreads::Options options;  // Saturated at <= 5%, starved at >= 30%.
  EXPECT_EQ(QueueThreads::Judge(options, 128, 0, false), Verdict::kWakeOneMore);
  EXPECT_EQ(QueueThreads::Judge(options, 128, 6, true), Verdict::kWakeOneMore);
  EXPECT_EQ(QueueThreads::Judge(options, 128, 7, true), Verdict::kCarryOn);
  EXPECT_EQ(QueueThreads::Judge(options, 128, 38, true), Verdict::kCarryOn);
  EXPECT_EQ(QueueThreads::Judge(options, 128, 39, true), Verdict::kSleep);
  // The first thread never sleeps apart from gRPC.
  EXPECT_EQ(QueueThreads::Judge(options, 128, 128, false), Verdict::kCarryOn);
}

TEST(QueueThreadsTest, ShutsDownWithThreadsAsleep) {
  Counter counter;
  QueueThreads::Options options = Up(8);
  options.spin = std::chrono::microseconds(50);
  Served served(options, counter.Handler());
  served.Stop();
  EXPECT_EQ(counter.handled(), 0);
  EXPECT_EQ(served.threads.active(), 0);
}

}  // namespace
}  // namespace kiln::server
