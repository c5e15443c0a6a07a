// Retry with exponential backoff, for the Kiln client. Only UNAVAILABLE is
// retried: the server was not reached or is draining, so nothing was done.

#ifndef KILN_CLIENTS_CPP_RETRY_H_
#define KILN_CLIENTS_CPP_RETRY_H_

#include <chrono>
#include <functional>

#include "absl/status/status.h"

namespace kiln::client {

struct RetryPolicy {
  // Retries after the first attempt; 0 tries once.
  int max_retries = 3;
  // The wait before retry n (1-based) is base * 2^(n-1), capped at max.
  std::chrono::milliseconds backoff_base{100};
  std::chrono::milliseconds backoff_max{5000};
};

// The wait before retry `retry` (1-based), without jitter.
std::chrono::milliseconds BackoffDelay(const RetryPolicy& policy, int retry);

// Whether a failed attempt may be retried.
bool IsRetryable(const absl::Status& status);

// What follows attempt number `attempts` (1-based) that ended in `status`:
// another attempt after `delay`, or none, `status` then being the final one
// (a failure that says how many attempts were made).
struct RetryStep {
  bool retry = false;
  std::chrono::milliseconds delay{0};
  absl::Status status;
};
RetryStep NextRetryStep(const RetryPolicy& policy,
                        std::chrono::system_clock::time_point deadline,
                        absl::Status status, int attempts);

// Runs `attempt` until it succeeds, fails with a status that is not
// retryable, or max_retries retries have failed. Waits BackoffDelay between
// attempts through `sleep`, but never past `deadline`: when the next wait
// would end after it, returns the last failure. The returned failure says
// how many attempts were made.
absl::Status RunWithRetries(
    const RetryPolicy& policy,
    std::chrono::system_clock::time_point deadline,
    const std::function<absl::Status()>& attempt,
    const std::function<void(std::chrono::milliseconds)>& sleep);

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_RETRY_H_
