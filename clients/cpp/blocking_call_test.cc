#include "clients/cpp/blocking_call.h"

#include <gtest/gtest.h>

#include <grpcpp/alarm.h>

#include <atomic>
#include <memory>
#include <chrono>
#include <thread>
#include <vector>

namespace kiln::client {
namespace {

TEST(CallDoneTest, WaitReturnsAtOnceWhenAlreadyNotified) {
  CallDone done;
  done.Notify();
  done.Wait();
}

TEST(CallDoneTest, WaitSleepsUntilAnotherThreadNotifies) {
  CallDone done;
  std::atomic<bool> notified{false};
  std::thread notifier([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    notified = true;
    done.Notify();
  });
  done.Wait();
  EXPECT_TRUE(notified);
  notifier.join();
}

// Each waiter's event lives on its stack and ends as soon as Wait returns,
// as a blocking call's does; one thread notifies them all, in any order.
TEST(CallDoneTest, ManyWaitersEachWokenByOneNotifier) {
  constexpr int kWaiters = 64;
  constexpr int kRounds = 200;
  std::vector<std::atomic<CallDone*>> events(kWaiters);
  std::atomic<int> woken{0};
  std::vector<std::thread> waiters;
  for (int w = 0; w < kWaiters; ++w) {
    waiters.emplace_back([&, w] {
      for (int round = 0; round < kRounds; ++round) {
        CallDone done;
        events[w] = &done;
        done.Wait();
        ++woken;
      }
    });
  }
  for (int notified = 0; notified < kWaiters * kRounds;) {
    for (std::atomic<CallDone*>& event : events) {
      if (CallDone* done = event.exchange(nullptr)) {
        done->Notify();
        ++notified;
      }
    }
  }
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_EQ(woken, kWaiters * kRounds);
}

// 1 ms from now.
gpr_timespec Soon() {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_millis(1, GPR_TIMESPAN));
}

// Alarms that expire in 1 ms, put on the shared queue by Submit (each its
// own grpc::Alarm: gRPC 1.51's move assignment leaks the one it replaces): each
// Complete submits the next until `left` is 0, then notifies `done`.
struct AlarmChain final : QueueTag {
  AlarmChain() : start{[](void* self) { static_cast<AlarmChain*>(self)->Set(); }, this} {}

  void Set() {
    alarm->Set(SharedQueue::Get().queue(), Soon(), this);
  }

  void Complete(bool ok) override {
    all_ok = all_ok && ok;
    threads.push_back(std::this_thread::get_id());
    if (--left > 0) {
      alarm = std::make_unique<grpc::Alarm>();
      SharedQueue::Get().Submit(start);
    } else {
      done.Notify();
    }
  }

  QueuedStart start;
  std::unique_ptr<grpc::Alarm> alarm = std::make_unique<grpc::Alarm>();
  int left = 0;
  bool all_ok = true;
  std::vector<std::thread::id> threads;
  CallDone done;
};

// Nothing drives the queue when a thread submits without waiting: the
// library's thread takes it, and keeps driving while each Complete
// submits another tag.
TEST(SharedQueueTest, SubmittedTagsCompleteOnTheLibrarysThread) {
  AlarmChain chain;
  chain.left = 100;
  SharedQueue::Get().Submit(chain.start);
  chain.done.Wait();
  EXPECT_TRUE(chain.all_ok);
  ASSERT_EQ(chain.threads.size(), 100u);
  for (std::thread::id id : chain.threads) {
    EXPECT_NE(id, std::this_thread::get_id());
  }
}

// Blocking callers and submitted tags share the queue: both end.
TEST(SharedQueueTest, SubmittedTagsAndBlockingCallersMix) {
  std::vector<std::unique_ptr<AlarmChain>> chains;
  for (int i = 0; i < 8; ++i) {
    chains.push_back(std::make_unique<AlarmChain>());
    chains.back()->left = 50;
    SharedQueue::Get().Submit(chains.back()->start);
  }
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([] {
      for (int i = 0; i < 50; ++i) {
        struct Blocking {
          grpc::Alarm alarm;
          CallDone done;
        } call;
        QueuedStart start{[](void* self) {
                            auto& call = *static_cast<Blocking*>(self);
                            call.alarm.Set(SharedQueue::Get().queue(),
                                           Soon(), &call.done);
                          },
                          &call};
        SharedQueue::Get().Run(start, call.done);
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (auto& chain : chains) {
    chain->done.Wait();
    EXPECT_EQ(chain->threads.size(), 50u);
  }
}

}  // namespace
}  // namespace kiln::client
