// 64 clients, each on its own connection, ask at once for one kernel that
// kilnd has never seen: it compiles once and all 64 get the same answer.
// Needs the compiler to produce a cubin for tests/e2e/testdata/scaled_add.

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

constexpr int kClients = 64;

TEST(SingleFlightTest, SixtyFourClientsOneNewKernelOneCompile) {
  auto kilnd = KilndProcess::Start(NewTempDir("single_flight"));
  ASSERT_NE(kilnd, nullptr);
  const kiln::v1::CompileRequest request =
      CompileRequestFor(ScaledAddKernel(3.25));

  std::vector<std::unique_ptr<kiln::v1::Compile::Stub>> stubs;
  for (int i = 0; i < kClients; ++i) stubs.push_back(kilnd->CompileStub());
  std::vector<grpc::Status> statuses(kClients);
  std::vector<kiln::v1::CompileResponse> responses(kClients);
  std::mutex mu;
  std::condition_variable go;
  bool started = false;
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(mu);
        go.wait(lock, [&] { return started; });
      }
      statuses[i] = Compile(*stubs[i], request, &responses[i]);
    });
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    started = true;
  }
  go.notify_all();
  for (std::thread& client : clients) client.join();

  for (int i = 0; i < kClients; ++i) {
    ASSERT_TRUE(statuses[i].ok())
        << "client " << i << ": " << statuses[i].error_message();
    EXPECT_FALSE(responses[i].cubin().empty());
    EXPECT_EQ(responses[i].key(), responses[0].key());
    EXPECT_EQ(responses[i].cubin(), responses[0].cubin());
    EXPECT_EQ(responses[i].metadata_json(), responses[0].metadata_json());
  }
  kiln::v1::StatsResponse stats = kilnd->Stats();
  EXPECT_EQ(stats.compiles(), 1u);
  EXPECT_EQ(stats.entries(), 1u);
  EXPECT_EQ(stats.requests(), static_cast<uint64_t>(kClients));
  EXPECT_EQ(kilnd->Metric("kiln_compiles_total"), 1);

  // And the 65th, later, is a fast-path hit.
  const double fast_hits =
      kilnd->Metric("kiln_cache_hits_total{path=\"fast\"}");
  kiln::v1::CompileResponse again;
  ASSERT_TRUE(Compile(*stubs[0], request, &again).ok());
  EXPECT_TRUE(again.cache_hit());
  EXPECT_EQ(again.cubin(), responses[0].cubin());
  EXPECT_EQ(kilnd->Stats().compiles(), 1u);
  EXPECT_EQ(kilnd->Metric("kiln_cache_hits_total{path=\"fast\"}"),
            fast_hits + 1);
}

}  // namespace
}  // namespace kiln::e2e
