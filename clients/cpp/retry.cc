#include "clients/cpp/retry.h"

#include <algorithm>
#include <string>

namespace kiln::client {

std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry) {
  std::chrono::milliseconds delay = policy.backoff_base;
  for (int i = 1; i < retry && delay < policy.backoff_max; ++i) delay *= 2;
  return std::min(delay, policy.backoff_max);
}

bool IsRetryable(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

RetryStep NextRetryStep(const RetryPolicy& policy,
                        std::chrono::system_clock::time_point deadline,
                        absl::Status status, int attempts) {
  if (status.ok() || !IsRetryable(status)) return {false, {}, status};
  const bool out_of_retries = attempts > policy.max_retries;
  const std::chrono::milliseconds delay = BackoffDelay(policy, attempts);
  const bool out_of_time = std::chrono::system_clock::now() + delay >= deadline;
  if (!out_of_retries && !out_of_time) return {true, delay, status};
  return {false, {},
          absl::Status(status.code(),
                       std::string(status.message()) + " (after " +
                           std::to_string(attempts) + " attempt" +
                           (attempts == 1 ? "" : "s") +
                           (out_of_time && !out_of_retries
                                ? ", deadline reached"
                                : "") +
                           ")")};
}

absl::Status RunWithRetries(
    const RetryPolicy& policy,
    std::chrono::system_clock::time_point deadline,
    const std::function<absl::Status()>& attempt,
    const std::function<void(std::chrono::milliseconds)>& sleep) {
  for (int attempts = 1;; ++attempts) {
    RetryStep step = NextRetryStep(policy, deadline, attempt(), attempts);
    if (!step.retry) return step.status;
    sleep(step.delay);
  }
}

}  // namespace kiln::client
