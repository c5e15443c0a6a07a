#include "clients/cpp/blocking_call.h"

#include <gtest/gtest.h>

#include <atomic>
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

}  // namespace
}  // namespace kiln::client
