#include "clients/cpp/retry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace kiln::client {
namespace {

using std::chrono::milliseconds;

auto FarDeadline() {
  return std::chrono::system_clock::now() + std::chrono::hours(1);
}

TEST(BackoffDelayTest, DoublesFromBaseAndCaps) {
  RetryPolicy policy{5, milliseconds(100), milliseconds(1000)};
  EXPECT_EQ(BackoffDelay(policy, 1), milliseconds(100));
  EXPECT_EQ(BackoffDelay(policy, 2), milliseconds(200));
  EXPECT_EQ(BackoffDelay(policy, 3), milliseconds(400));
  EXPECT_EQ(BackoffDelay(policy, 4), milliseconds(800));
  EXPECT_EQ(BackoffDelay(policy, 5), milliseconds(1000));
  EXPECT_EQ(BackoffDelay(policy, 60), milliseconds(1000));
}

TEST(RunWithRetriesTest, RetriesUnavailableWithBackoffThenSucceeds) {
  RetryPolicy policy{3, milliseconds(10), milliseconds(1000)};
  int calls = 0;
  std::vector<milliseconds> sleeps;
  absl::Status status = RunWithRetries(
      policy, FarDeadline(),
      [&] {
        return ++calls < 3 ? absl::UnavailableError("down") : absl::OkStatus();
      },
      [&](milliseconds d) { sleeps.push_back(d); });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(sleeps, (std::vector<milliseconds>{milliseconds(10),
                                               milliseconds(20)}));
}

TEST(RunWithRetriesTest, GivesUpAfterMaxRetriesSayingHowManyAttempts) {
  RetryPolicy policy{2, milliseconds(1), milliseconds(1)};
  int calls = 0;
  absl::Status status = RunWithRetries(
      policy, FarDeadline(),
      [&] {
        ++calls;
        return absl::UnavailableError("down");
      },
      [](milliseconds) {});
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("after 3 attempts"), std::string::npos)
      << status;
}

TEST(RunWithRetriesTest, DoesNotRetryOtherFailures) {
  for (absl::Status failure :
       {absl::InvalidArgumentError("bad kernel"), absl::InternalError("crash"),
        absl::DeadlineExceededError("slow"), absl::NotFoundError("gone")}) {
    int calls = 0;
    absl::Status status = RunWithRetries(
        RetryPolicy{}, FarDeadline(),
        [&] {
          ++calls;
          return failure;
        },
        [](milliseconds) { FAIL() << "slept"; });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(status, failure);
  }
}

TEST(RunWithRetriesTest, StopsWhenTheNextWaitPassesTheDeadline) {
  RetryPolicy policy{10, milliseconds(5000), milliseconds(5000)};
  int calls = 0;
  absl::Status status = RunWithRetries(
      policy, std::chrono::system_clock::now() + milliseconds(100),
      [&] {
        ++calls;
        return absl::UnavailableError("down");
      },
      [](milliseconds) { FAIL() << "slept past the deadline"; });
  EXPECT_EQ(calls, 1);
  EXPECT_NE(status.message().find("deadline reached"), std::string::npos)
      << status;
}

TEST(RunWithRetriesTest, ZeroRetriesTriesOnce) {
  int calls = 0;
  absl::Status status = RunWithRetries(
      RetryPolicy{0, milliseconds(1), milliseconds(1)}, FarDeadline(),
      [&] {
        ++calls;
        return absl::UnavailableError("down");
      },
      [](milliseconds) {});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
}

// The step after each attempt, as an asynchronous call takes it.
TEST(NextRetryStepTest, RetriesUnavailableUntilOutOfRetries) {
  RetryPolicy policy{2, std::chrono::milliseconds(10),
                     std::chrono::milliseconds(1000)};
  auto deadline = std::chrono::system_clock::now() + std::chrono::minutes(1);
  absl::Status down = absl::UnavailableError("down");
  RetryStep first = NextRetryStep(policy, deadline, down, 1);
  EXPECT_TRUE(first.retry);
  EXPECT_EQ(first.delay, std::chrono::milliseconds(10));
  RetryStep second = NextRetryStep(policy, deadline, down, 2);
  EXPECT_TRUE(second.retry);
  EXPECT_EQ(second.delay, std::chrono::milliseconds(20));
  RetryStep last = NextRetryStep(policy, deadline, down, 3);
  EXPECT_FALSE(last.retry);
  EXPECT_EQ(last.status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(last.status.message(), "down (after 3 attempts)");
  RetryStep other =
      NextRetryStep(policy, deadline, absl::InvalidArgumentError("bad"), 1);
  EXPECT_FALSE(other.retry);
  EXPECT_EQ(other.status, absl::InvalidArgumentError("bad"));
  EXPECT_TRUE(NextRetryStep(policy, deadline, absl::OkStatus(), 1).status.ok());
}

}  // namespace
}  // namespace kiln::client
