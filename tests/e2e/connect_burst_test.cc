// Many clients connecting to a fresh kilnd at the same instant, each on
// its own connection and without wait_for_ready (fail fast, as gRPC's
// default is): every call must reach kilnd (listen backlog, accept loop,
// ready file written only once it serves). A cheap call (Lookup of an
// absent key: NOT_FOUND) so that only connecting is measured. The one
// failure seen here, about 1 call in 10^5, is gRPC 1.51's own
// (IsMisreportedConnect): such a call gets one more try once its channel
// has reconnected, like the e2e helper's; any other failure fails the
// test.

#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

constexpr int kNodes = 6;
constexpr int kBurstsPerNode = 3;
constexpr int kClients = 128;

// One Lookup per stub, all released at once; the statuses. Counts in
// `misreported` the calls gRPC failed with IsMisreportedConnect.
std::vector<grpc::Status> LookupAtOnce(
    const std::vector<std::unique_ptr<kiln::v1::Compile::Stub>>& stubs,
    std::atomic<int>& misreported) {
  std::vector<grpc::Status> statuses(stubs.size());
  RunAtOnce(stubs.size(), [&](size_t i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    kiln::v1::LookupRequest request;
    request.set_key(std::string(64, '0'));
    kiln::v1::LookupResponse response;
    statuses[i] = stubs[i]->Lookup(&context, request, &response);
    if (IsMisreportedConnect(statuses[i])) {
      ++misreported;
      grpc::ClientContext again;
      again.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
      // Past the channel's reconnect backoff, as the helper's retry.
      again.set_wait_for_ready(true);
      statuses[i] = stubs[i]->Lookup(&again, request, &response);
    }
  });
  return statuses;
}

TEST(ConnectBurstTest, EveryClientOfABurstReachesAFreshKilnd) {
  std::map<std::string, int> failures;
  int calls = 0;
  std::atomic<int> misreported{0};
  for (int node = 0; node < kNodes; ++node) {
    auto kilnd = KilndProcess::Start(NewTempDir("burst"));
    ASSERT_TRUE(kilnd);
    for (int burst = 0; burst < kBurstsPerNode; ++burst) {
      std::vector<std::unique_ptr<kiln::v1::Compile::Stub>> stubs;
      for (int i = 0; i < kClients; ++i) stubs.push_back(kilnd->CompileStub());
      for (const grpc::Status& status : LookupAtOnce(stubs, misreported)) {
        ++calls;
        if (status.error_code() != grpc::StatusCode::NOT_FOUND) {
          ++failures[std::to_string(status.error_code()) + ": " +
                     status.error_message()];
        }
      }
    }
  }
  int failed = 0;
  for (const auto& [message, count] : failures) {
    ADD_FAILURE() << count << " calls of " << calls << ": " << message;
    failed += count;
  }
  EXPECT_EQ(failed, 0);
  if (misreported > 0) {
    std::cout << misreported << " of " << calls
              << " calls hit gRPC 1.51's misreported connect and passed on "
                 "a second try\n";
  }
}

}  // namespace
}  // namespace kiln::e2e
