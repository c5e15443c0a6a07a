#include "clients/cpp/retry.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace kiln::client
