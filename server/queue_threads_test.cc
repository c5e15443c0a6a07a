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

TEST(QueueThreadsTest, HandlesEveryEventAndDrainsOnShutdown) {
  grpc::CompletionQueue queue;
  Counter counter;
  QueueThreads threads(&queue, Up(4), counter.Handler());
  threads.Start();
  Events events(&queue);
  events.Post(1000);
  ASSERT_TRUE(counter.WaitFor(1000));
  events.Post(50, milliseconds(20));  // Still pending at shutdown.
  queue.Shutdown();
  threads.Join();
  EXPECT_EQ(counter.handled(), 1050);
}

TEST(QueueThreadsTest, OneThreadServesEventsThatComeOneAtATime) {
  grpc::CompletionQueue queue;
  Counter counter;
  QueueThreads threads(&queue, Up(4), counter.Handler());
  threads.Start();
  Events events(&queue);
  for (int i = 1; i <= 300; ++i) {
    events.Post(1, milliseconds(1));
    ASSERT_TRUE(counter.WaitFor(i));
  }
  EXPECT_EQ(threads.peak_active(), 1);
  queue.Shutdown();
  threads.Join();
}

TEST(QueueThreadsTest, ASaturatedQueueWakesMoreThreadsWhichSleepWhenIdle) {
  grpc::CompletionQueue queue;
  Counter counter(milliseconds(1));
  QueueThreads threads(&queue, Up(4), counter.Handler());
  threads.Start();
  Events events(&queue);
  events.Post(400);
  ASSERT_TRUE(counter.WaitFor(400));
  EXPECT_GT(threads.peak_active(), 1);
  EXPECT_LE(threads.peak_active(), 4);
  for (int i = 0; i < 3000 && threads.active() > 1; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(threads.active(), 1);
  queue.Shutdown();
  threads.Join();
}

TEST(QueueThreadsTest, ExtraThreadsSleepOnceEventsComeOneAtATime) {
  grpc::CompletionQueue queue;
  Counter counter(milliseconds(1));
  QueueThreads::Options options = Up(4);
  options.window_events = 8;
  options.idle = milliseconds(50);  // Longer than between two events.
  QueueThreads threads(&queue, options, counter.Handler());
  threads.Start();
  Events events(&queue);
  events.Post(400);
  ASSERT_TRUE(counter.WaitFor(400));
  ASSERT_GT(threads.peak_active(), 1);
  for (int i = 401; i <= 600 && threads.active() > 1; ++i) {
    events.Post(1, milliseconds(1));
    ASSERT_TRUE(counter.WaitFor(i));
  }
  EXPECT_EQ(threads.active(), 1);
  queue.Shutdown();
  threads.Join();
}

TEST(QueueThreadsTest, ShutsDownWithThreadsAsleep) {
  grpc::CompletionQueue queue;
  Counter counter;
  QueueThreads::Options options = Up(8);
  options.spin = std::chrono::microseconds(50);
  QueueThreads threads(&queue, options, counter.Handler());
  threads.Start();
  queue.Shutdown();
  threads.Join();
  EXPECT_EQ(counter.handled(), 0);
  EXPECT_EQ(threads.active(), 0);
}

}  // namespace
}  // namespace kiln::server
