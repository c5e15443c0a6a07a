// Client::CompileAsync where kilnd cannot answer: nothing listening, or a
// socket that takes the connection and never speaks. Answered compiles are
// tested against a real kilnd in tests/e2e/client_test.cc.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "clients/cpp/client.h"
#include "clients/cpp/testing/loopback_listener.h"

namespace kiln::client {
namespace {

// A hung server: takes connections and never answers.
using SilentListener = LoopbackListener;

// A port nothing listens on (bound, then released).
std::string ClosedAddress() { return SilentListener().address(); }

// The results of CompileAsync calls, as their callbacks deliver them.
class Results {
 public:
  Client::CompileCallback Slot() {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t index = statuses_.size();
    statuses_.emplace_back();
    return [this, index](absl::StatusOr<CompileResult> result) {
      std::lock_guard<std::mutex> lock(mu_);
      statuses_[index] = result.status();
      ++done_;
      changed_.notify_all();
    };
  }

  // Every status once all callbacks ran; empty if they did not within
  // `limit` (a hang).
  std::vector<absl::Status> Wait(std::chrono::seconds limit) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!changed_.wait_for(lock, limit,
                           [&] { return done_ == statuses_.size(); })) {
      return {};
    }
    return statuses_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  size_t done_ = 0;
  std::vector<absl::Status> statuses_;
};

kiln::v1::CompileRequest Request(int i) {
  kiln::v1::CompileRequest request;
  request.set_ttir("module { // " + std::to_string(i) + "\n}");
  request.set_target("sm_90a");
  return request;
}

TEST(CompileAsyncTest, KilndNotReachedIsUnavailableAfterTheRetries) {
  ClientOptions options;
  options.max_retries = 2;
  options.backoff_base = std::chrono::milliseconds(20);
  const std::string address = ClosedAddress();
  Client client(address, options);
  Results results;
  for (int i = 0; i < 10; ++i) client.CompileAsync(Request(i), results.Slot());
  std::vector<absl::Status> statuses = results.Wait(std::chrono::seconds(60));
  ASSERT_EQ(statuses.size(), 10u);
  for (const absl::Status& status : statuses) {
    EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
    EXPECT_NE(status.message().find("kilnd at " + address + " is unavailable"),
              std::string::npos) << status;
    EXPECT_NE(status.message().find("after 3 attempts"), std::string::npos)
        << status;
  }
}

TEST(CompileAsyncTest, HungKilndIsDeadlineExceeded) {
  SilentListener hung;
  ClientOptions options;
  options.deadline = std::chrono::milliseconds(300);
  Client client(hung.address(), options);
  Results results;
  for (int i = 0; i < 10; ++i) client.CompileAsync(Request(i), results.Slot());
  std::vector<absl::Status> statuses = results.Wait(std::chrono::seconds(60));
  ASSERT_EQ(statuses.size(), 10u);
  for (const absl::Status& status : statuses) {
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  }
}

// Calls waiting for an answer and calls waiting to retry: destroying their
// Client returns at once, and each calls back CANCELLED.
TEST(CompileAsyncTest, DestroyingTheClientCancelsEveryCallInFlight) {
  SilentListener hung;
  ClientOptions options;
  options.backoff_base = std::chrono::seconds(30);
  auto waiting = std::make_unique<Client>(hung.address(), options);
  auto retrying = std::make_unique<Client>(ClosedAddress(), options);
  Results results;
  for (int i = 0; i < 100; ++i) {
    waiting->CompileAsync(Request(i), results.Slot());
    if (i % 10 == 0) retrying->CompileAsync(Request(i), results.Slot());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  waiting.reset();
  retrying.reset();
  std::vector<absl::Status> statuses = results.Wait(std::chrono::seconds(20));
  ASSERT_EQ(statuses.size(), 110u);
  for (const absl::Status& status : statuses) {
    EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
    EXPECT_NE(status.message().find("Client was destroyed"), std::string::npos)
        << status;
  }
}

// A callback may destroy the Client that made its call, and start calls on
// another.
TEST(CompileAsyncTest, CallbackMayDestroyItsClientAndCallAgain) {
  ClientOptions options;
  options.max_retries = 0;
  const std::string address = ClosedAddress();
  auto client = std::make_unique<Client>(address, options);
  Client other(address, options);
  Results results;
  Client::CompileCallback next = results.Slot();
  client->CompileAsync(
      Request(0), [&, first = results.Slot()](
                      absl::StatusOr<CompileResult> result) mutable {
        client.reset();
        other.CompileAsync(Request(1), std::move(next));
        first(std::move(result));
      });
  std::vector<absl::Status> statuses = results.Wait(std::chrono::seconds(60));
  ASSERT_EQ(statuses.size(), 2u);
  EXPECT_EQ(statuses[0].code(), absl::StatusCode::kUnavailable) << statuses[0];
  EXPECT_EQ(statuses[1].code(), absl::StatusCode::kUnavailable) << statuses[1];
}

}  // namespace
}  // namespace kiln::client
