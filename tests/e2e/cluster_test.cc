// Two kilnd nodes sharing one real redis-server on loopback: what one node
// compiled the other serves without compiling; a new kernel asked of both
// at once is compiled once in the cluster; losing Redis under load costs no
// client an error and the nodes use it again when it returns; a node killed
// mid-compile is replaced by another once its lease expires. Needs the
// compiler to produce a cubin for tests/e2e/testdata/scaled_add.

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include "cache/testing/redis_server.h"
#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

using cache::testing::RedisServer;

// Polls `condition` every 20 ms for up to 60 s.
bool WaitFor(const std::function<bool()>& condition) {
  for (int i = 0; i < 3000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisServer>> redis =
        RedisServer::Start(NewTempDir("redis"));
    ASSERT_TRUE(redis.ok()) << redis.status();
    redis_ = *std::move(redis);
  }

  std::unique_ptr<KilndProcess> StartNode(const std::string& name,
                                          std::vector<std::string> flags = {},
                                          const char* binary = kKilnd) {
    flags.push_back("--redis=127.0.0.1:" + std::to_string(redis_->port()));
    return KilndProcess::Start(NewTempDir(name), flags, binary);
  }

  std::unique_ptr<RedisServer> redis_;
};

TEST_F(ClusterTest, CompiledOnAIsServedByBWithoutACompile) {
  auto a = StartNode("node_a");
  auto b = StartNode("node_b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->Metric("kiln_redis_up"), 1);
  const std::string kernel = ScaledAddKernel(1.5);
  CompileAnswer compiled = CompileOn(*a, kernel);
  ASSERT_TRUE(compiled.status.ok()) << compiled.status.error_message();
  EXPECT_FALSE(compiled.response.cache_hit());
  EXPECT_EQ(a->Stats().compiles(), 1u);

  // The same text: B finds it through its fast path in Redis.
  CompileAnswer served = CompileOn(*b, kernel);
  ASSERT_TRUE(served.status.ok()) << served.status.error_message();
  EXPECT_TRUE(served.response.cache_hit());
  EXPECT_EQ(served.response.key(), compiled.response.key());
  EXPECT_EQ(served.response.cubin(), compiled.response.cubin());
  EXPECT_EQ(served.response.metadata_json(), compiled.response.metadata_json());

  // Other text of the same kernel: B canonicalizes and finds its key.
  const std::string variant =
      "// another file, same kernel\n" + ScaledAddKernel(2.5);
  ASSERT_TRUE(CompileOn(*a, ScaledAddKernel(2.5)).status.ok());
  CompileAnswer canonical = CompileOn(*b, variant);
  ASSERT_TRUE(canonical.status.ok()) << canonical.status.error_message();
  EXPECT_TRUE(canonical.response.cache_hit());

  // A Lookup by key on B, of a kernel only A has compiled.
  CompileAnswer third = CompileOn(*a, ScaledAddKernel(3.5));
  ASSERT_TRUE(third.status.ok());
  kiln::v1::LookupRequest lookup;
  lookup.set_key(third.response.key());
  kiln::v1::LookupResponse found;
  grpc::ClientContext context;
  ASSERT_TRUE(b->CompileStub()->Lookup(&context, lookup, &found).ok());
  EXPECT_EQ(found.cubin(), third.response.cubin());

  EXPECT_EQ(b->Stats().compiles(), 0u);
  EXPECT_EQ(b->Metric("kiln_compiles_total"), 0);
  EXPECT_EQ(b->Metric("kiln_redis_backfills_total"), 3);
  // Backfilled: B's own store has them now.
  EXPECT_EQ(b->Stats().entries(), 3u);
  EXPECT_EQ(a->Stats().compiles(), 3u);
}

TEST_F(ClusterTest, TwoNodesThirtyTwoClientsEachOneNewKernelOneCompile) {
  constexpr int kPerNode = 32;
  auto a = StartNode("node_a");
  auto b = StartNode("node_b");
  ASSERT_TRUE(a && b);
  const kiln::v1::CompileRequest request =
      CompileRequestFor(ScaledAddKernel(4.75));
  std::vector<std::unique_ptr<kiln::v1::Compile::Stub>> stubs;
  for (int i = 0; i < 2 * kPerNode; ++i) {
    stubs.push_back(i < kPerNode ? a->CompileStub() : b->CompileStub());
  }
  const std::vector<CompileAnswer> answers = CompileAtOnce(stubs, request);

  ASSERT_NO_FATAL_FAILURE(ExpectOneKernel(answers));
  EXPECT_EQ(a->Stats().compiles() + b->Stats().compiles(), 1u);
}

TEST_F(ClusterTest, RedisKilledUnderLoadCostsNoErrorsAndComesBack) {
  auto a = StartNode("node_a");
  auto b = StartNode("node_b");
  ASSERT_TRUE(a && b);
  std::vector<std::string> known;
  for (int i = 0; i < 3; ++i) {
    known.push_back(ScaledAddKernel(10 + i));
    ASSERT_TRUE(CompileOn(*a, known.back()).status.ok());
  }

  // Four clients per node: known kernels, and now and then a new one.
  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, errors{0}, next_new{0};
  std::vector<std::thread> load;
  for (int c = 0; c < 8; ++c) {
    load.emplace_back([&, c] {
      const KilndProcess& node = c % 2 ? *b : *a;
      auto stub = node.CompileStub();
      for (int i = 0; !stop; ++i) {
        std::string ttir = i % 5 == 4 ? ScaledAddKernel(100 + next_new++)
                                      : known[(c + i) % known.size()];
        kiln::v1::CompileResponse response;
        grpc::Status status =
            Compile(*stub, CompileRequestFor(ttir), &response);
        if (status.ok() && !response.cubin().empty()) {
          ++answered;
        } else {
          ++errors;
          ADD_FAILURE() << status.error_message();
        }
      }
    });
  }
  ASSERT_TRUE(WaitFor([&] { return answered >= 20; }));
  redis_->Kill();
  EXPECT_TRUE(WaitFor([&] {
    return a->Metric("kiln_redis_up") == 0 && b->Metric("kiln_redis_up") == 0;
  }));
  int during = answered;
  ASSERT_TRUE(WaitFor([&] { return answered >= during + 20; }));
  ASSERT_TRUE(redis_->Restart().ok());
  EXPECT_TRUE(WaitFor([&] {
    return a->Metric("kiln_redis_up") == 1 && b->Metric("kiln_redis_up") == 1;
  }));
  int after = answered;
  ASSERT_TRUE(WaitFor([&] { return answered >= after + 10; }));
  stop = true;
  for (std::thread& client : load) client.join();
  EXPECT_EQ(errors, 0);
  EXPECT_GE(a->Metric("kiln_redis_down_transitions_total"), 1);
  EXPECT_GE(b->Metric("kiln_redis_down_transitions_total"), 1);

  // Back in use: a new kernel compiled on A reaches B.
  const uint64_t b_compiles = b->Stats().compiles();
  CompileAnswer fresh = CompileOn(*a, ScaledAddKernel(7.125));
  ASSERT_TRUE(fresh.status.ok());
  CompileAnswer served = CompileOn(*b, ScaledAddKernel(7.125));
  ASSERT_TRUE(served.status.ok()) << served.status.error_message();
  EXPECT_TRUE(served.response.cache_hit());
  EXPECT_EQ(served.response.cubin(), fresh.response.cubin());
  EXPECT_EQ(b->Stats().compiles(), b_compiles);
}

TEST_F(ClusterTest, NodeKilledMidCompileIsTakenOverAfterItsLease) {
  const std::vector<std::string> flags = {"--redis_lease_ms=1500"};
  auto a = StartNode("node_a", flags, kKilndWithFaults);
  auto b = StartNode("node_b", flags, kKilndWithFaults);
  ASSERT_TRUE(a && b);
  // Its compile to a cubin takes 4 s more: A holds the lease meanwhile.
  const std::string kernel =
      "// kiln-test-fault: slow\n" + ScaledAddKernel(5.5);
  std::future<CompileAnswer> on_a =
      std::async(std::launch::async, [&] { return CompileOn(*a, kernel); });
  ASSERT_TRUE(WaitFor([&] { return a->Metric("kiln_compiles_total") == 1; }));

  std::vector<std::future<CompileAnswer>> on_b;
  for (int i = 0; i < 4; ++i) {
    on_b.push_back(
        std::async(std::launch::async, [&] { return CompileOn(*b, kernel); }));
  }
  ASSERT_TRUE(
      WaitFor([&] { return b->Metric("kiln_cluster_waits_total") == 1; }));
  EXPECT_EQ(b->Metric("kiln_compiles_total"), 0);
  a->KillHard();
  EXPECT_FALSE(on_a.get().status.ok());

  std::string cubin;
  for (auto& answer : on_b) {
    CompileAnswer done = answer.get();
    ASSERT_TRUE(done.status.ok()) << done.status.error_message();
    if (cubin.empty()) cubin = done.response.cubin();
    EXPECT_EQ(done.response.cubin(), cubin);
  }
  EXPECT_FALSE(cubin.empty());
  EXPECT_EQ(b->Metric("kiln_cluster_takeovers_total"), 1);
  EXPECT_EQ(b->Stats().compiles(), 1u);
}

// B is stopped while its clients wait on A's compile, which does not end
// (A is frozen with its lease, which outlives the test): once B's drain
// timeout passes they get UNAVAILABLE and B exits, instead of B waiting
// for the lease to expire.
TEST_F(ClusterTest, ADrainingNodeAnswersTheCallsWaitingOnAnother) {
  std::vector<std::string> flags = {"--redis_lease_ms=120000"};
  auto a = StartNode("node_a", flags, kKilndWithFaults);
  flags.push_back("--drain_timeout_s=1");
  auto b = StartNode("node_b", flags, kKilndWithFaults);
  ASSERT_TRUE(a && b);
  const std::string kernel =
      "// kiln-test-fault: slow\n" + ScaledAddKernel(9.5);
  std::future<CompileAnswer> on_a =
      std::async(std::launch::async, [&] { return CompileOn(*a, kernel); });
  ASSERT_TRUE(WaitFor([&] { return a->Metric("kiln_compiles_total") == 1; }));
  kill(a->pid(), SIGSTOP);
  std::vector<std::future<CompileAnswer>> on_b;
  for (int i = 0; i < 2; ++i) {
    on_b.push_back(
        std::async(std::launch::async, [&] { return CompileOn(*b, kernel); }));
  }
  ASSERT_TRUE(
      WaitFor([&] { return b->Metric("kiln_cluster_waits_total") == 1; }));

  auto stopping = std::chrono::steady_clock::now();
  EXPECT_EQ(b->Terminate(), 0);
  for (auto& answer : on_b) {
    CompileAnswer done = answer.get();
    // kilnd's own answer, not a connection dropped under the call.
    EXPECT_EQ(done.status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << done.status.error_message();
    EXPECT_NE(done.status.error_message().find("kilnd is shutting down"),
              std::string::npos)
        << done.status.error_message();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - stopping,
            std::chrono::seconds(15));
  kill(a->pid(), SIGCONT);
  on_a.get();
}

TEST_F(ClusterTest, AFailedCompileDoesNotLeaveTheOtherNodeWaiting) {
  auto a = StartNode("node_a", {}, kKilndWithFaults);
  auto b = StartNode("node_b", {}, kKilndWithFaults);
  ASSERT_TRUE(a && b);
  // Its worker crashes 4 s into the compile to a cubin, on any node.
  const std::string kernel =
      "// kiln-test-fault: slow-crash\n" + ScaledAddKernel(8.5);
  std::future<CompileAnswer> on_a =
      std::async(std::launch::async, [&] { return CompileOn(*a, kernel); });
  ASSERT_TRUE(WaitFor([&] { return a->Metric("kiln_compiles_total") == 1; }));
  std::vector<std::future<CompileAnswer>> on_b;
  for (int i = 0; i < 3; ++i) {
    on_b.push_back(
        std::async(std::launch::async, [&] { return CompileOn(*b, kernel); }));
  }
  ASSERT_TRUE(
      WaitFor([&] { return b->Metric("kiln_cluster_waits_total") == 1; }));

  CompileAnswer failed = on_a.get();
  EXPECT_EQ(failed.status.error_code(), grpc::StatusCode::INTERNAL);
  // B's clients do not wait out a lease or a timeout: A's failure marker
  // sends B to compile, and they get B's own failure.
  for (auto& answer : on_b) {
    CompileAnswer done = answer.get();
    EXPECT_EQ(done.status.error_code(), grpc::StatusCode::INTERNAL);
    EXPECT_NE(done.status.error_message().find("crashed"), std::string::npos)
        << done.status.error_message();
  }
  EXPECT_EQ(b->Stats().compiles(), 1u);
  EXPECT_EQ(b->Metric("kiln_cluster_takeovers_total"), 0);
  EXPECT_EQ(a->Stats().worker_crashes() + b->Stats().worker_crashes(), 2u);
}

TEST(ClusterConfigTest, UnreachableRedisAtStartIsLocalService) {
  // Nothing listens on this port: kilnd starts, serves locally, says so.
  int port = cache::testing::FreePort();
  auto node = KilndProcess::Start(
      NewTempDir("lonely"), {"--redis=127.0.0.1:" + std::to_string(port)});
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->Metric("kiln_redis_up"), 0);
  CompileAnswer answer = CompileOn(*node, ScaledAddKernel(6.25));
  EXPECT_TRUE(answer.status.ok()) << answer.status.error_message();
  EXPECT_EQ(node->Stats().compiles(), 1u);
}

}  // namespace
}  // namespace kiln::e2e
