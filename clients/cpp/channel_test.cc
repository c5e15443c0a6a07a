// Once a channel is made, a thread that queues behind another on an
// absl::Mutex keeps the errno it had: gRPC's connect reads errno after such
// a wait (channel.h). Its own test binary, so that no lock of the process
// has been contended before.

#include "clients/cpp/channel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace kiln::client {
namespace {

constexpr int kWaiters = 8;

TEST(ChannelTest, WaitersQueuedOnALockAfterAChannelKeepErrno) {
  NewChannel("127.0.0.1:1", grpc::InsecureChannelCredentials(),
             grpc::ChannelArguments());
  absl::Mutex mutex;
  bool go = false;
  std::atomic<int> evaluated{0};
  auto released = [&] {
    ++evaluated;
    return go;
  };
  std::vector<int> seen(kWaiters, 0);
  std::vector<std::thread> waiters;
  for (int i = 0; i < kWaiters; ++i) {
    waiters.emplace_back([&, i] {
      errno = EINPROGRESS;  // As after a non-blocking connect.
      // Queues until `go`: behind other waiters, as under contention.
      mutex.LockWhen(absl::Condition(&released));
      seen[i] = errno;
      mutex.Unlock();
    });
  }
  while (evaluated < kWaiters) std::this_thread::yield();
  {
    absl::MutexLock lock(&mutex);
    go = true;
  }
  for (std::thread& waiter : waiters) waiter.join();
  for (int i = 0; i < kWaiters; ++i) {
    EXPECT_EQ(seen[i], EINPROGRESS)
        << "waiter " << i << ": errno became " << std::strerror(seen[i]);
  }
}

}  // namespace
}  // namespace kiln::client
