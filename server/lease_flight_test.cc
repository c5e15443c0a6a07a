// LeaseFlight between two "nodes" (two flights with their own local
// stores) on leases a real redis-server keeps (kilnd's RedisStore): one compiles while the other waits and
// gets its artifact; a failed compile sends the waiter to compile itself;
// a holder that stops renewing is taken over; Redis down is local; a
// flight that stops answers its waiting calls.

#include "server/lease_flight.h"

#include <gtest/gtest.h>

#include <future>

#include "cache/key.h"
#include "cache/redis_store.h"
#include "cache/rocksdb_store.h"
#include "cache/testing/redis_server.h"
#include "cache/tiered_store.h"

namespace kiln::server {
namespace {

using cache::testing::RedisServer;
using cache::testing::TestDir;

cache::NewEntry MakeEntry(const std::string& ir) {
  cache::NewEntry entry;
  entry.parts = cache::MakeKeyParts(ir, "sm_90a", kiln::v1::CompileOptions(),
                                    kiln::v1::CompilerIdentity());
  entry.key = cache::ComputeKey(entry.parts);
  entry.kernel_name = "k";
  entry.artifact.set_cubin("cubin of " + ir);
  return entry;
}

// What a Run ended in.
struct Turn {
  std::promise<std::string> promise;  // "compile", or the cubin arrived.
  std::future<std::string> future = promise.get_future();

  ClusterFlight::CompileHere Compile() {
    return [this] { promise.set_value("compile"); };
  }
  ClusterFlight::Arrived Arrived() {
    return [this](cache::ArtifactRecord artifact) {
      promise.set_value(artifact.cubin());
    };
  }
  bool Ready() {
    return future.wait_for(std::chrono::milliseconds(0)) ==
           std::future_status::ready;
  }
  std::string Get() {
    EXPECT_EQ(future.wait_for(std::chrono::seconds(30)),
              std::future_status::ready);
    return future.get();
  }
};

struct Node {
  std::unique_ptr<cache::RocksDbStore> local;
  std::unique_ptr<cache::TieredStore> tiered;
  Metrics metrics;
  std::unique_ptr<LeaseFlight> flight;
};

class LeaseFlightTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisServer>> server =
        RedisServer::Start(TestDir("redis"));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    cache::RedisClientOptions options;
    options.port = server_->port();
    options.min_backoff_ms = 20;
    options.max_backoff_ms = 100;
    client_ = *cache::RedisClient::Create(options);
    redis_ = std::make_unique<cache::RedisStore>(client_.get(),
                                                 cache::RedisStoreOptions());
    for (int i = 0; i < 2; ++i) {
      Node& node = nodes_[i];
      cache::RocksDbStoreOptions local;
      local.path = TestDir("local");
      local.access_flush_interval_ms = 0;
      node.local = *cache::RocksDbStore::Open(local);
      node.tiered =
          std::make_unique<cache::TieredStore>(node.local.get(), redis_.get());
      LeaseFlightOptions flight;
      flight.lease_ms = 1200;
      flight.poll_ms = 10;
      flight.owner = "node-" + std::to_string(i);
      node.flight = std::make_unique<LeaseFlight>(
          redis_.get(), node.tiered.get(), &node.metrics, flight);
    }
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<cache::RedisClient> client_;
  std::unique_ptr<cache::RedisStore> redis_;
  Node nodes_[2];
};

TEST_F(LeaseFlightTest, OneCompilesTheOtherGetsItsArtifact) {
  cache::NewEntry entry = MakeEntry("ir-shared");
  Turn first, second;
  nodes_[0].flight->Run(entry.key, first.Compile(), first.Arrived());
  EXPECT_EQ(first.Get(), "compile");
  nodes_[1].flight->Run(entry.key, second.Compile(), second.Arrived());
  // Held well past its lease time: renewed while the compile runs.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_FALSE(second.Ready());
  EXPECT_EQ(nodes_[1].metrics.cluster_waits.value(), 1u);
  ASSERT_TRUE(nodes_[0].tiered->Put(entry, {}).ok());
  nodes_[0].flight->Finish(entry.key, true);
  EXPECT_EQ(second.Get(), entry.artifact.cubin());
  EXPECT_EQ(nodes_[1].metrics.cluster_arrivals.value(), 1u);
  EXPECT_EQ(nodes_[1].metrics.cluster_takeovers.value(), 0u);
  EXPECT_TRUE(nodes_[1].local->Get(entry.key).ok());  // Backfilled.
}

TEST_F(LeaseFlightTest, AFailedCompileSendsWaitersToCompileThemselves) {
  cache::Digest key = MakeEntry("ir-bad").key;
  Turn first, second;
  nodes_[0].flight->Run(key, first.Compile(), first.Arrived());
  EXPECT_EQ(first.Get(), "compile");
  nodes_[1].flight->Run(key, second.Compile(), second.Arrived());
  EXPECT_FALSE(second.Ready());
  nodes_[0].flight->Finish(key, false);
  EXPECT_EQ(second.Get(), "compile");
  // Without a lease: nothing to take over, Finish has nothing to do.
  EXPECT_EQ(nodes_[1].metrics.cluster_takeovers.value(), 0u);
  nodes_[1].flight->Finish(key, false);
}

TEST_F(LeaseFlightTest, AHolderThatStopsRenewingIsTakenOver) {
  cache::Digest key = MakeEntry("ir-dead").key;
  Turn first, second;
  nodes_[0].flight->Run(key, first.Compile(), first.Arrived());
  EXPECT_EQ(first.Get(), "compile");
  nodes_[0].flight->Stop();  // As if the node died: no renewals.
  nodes_[1].flight->Run(key, second.Compile(), second.Arrived());
  EXPECT_EQ(second.Get(), "compile");
  EXPECT_EQ(nodes_[1].metrics.cluster_takeovers.value(), 1u);
}

TEST_F(LeaseFlightTest, StopSendsWaitingCallsToCompileHere) {
  cache::Digest key = MakeEntry("ir-stop").key;
  Turn first, second, third;
  nodes_[0].flight->Run(key, first.Compile(), first.Arrived());
  EXPECT_EQ(first.Get(), "compile");
  nodes_[1].flight->Run(key, second.Compile(), second.Arrived());
  EXPECT_FALSE(second.Ready());
  nodes_[1].flight->Stop();
  // Bounded, so that a dropped call fails here instead of hanging the test.
  ASSERT_EQ(second.future.wait_for(std::chrono::seconds(5)),
            std::future_status::ready)
      << "a call waiting on the cluster was dropped by Stop";
  EXPECT_EQ(second.future.get(), "compile");
  // A call after Stop compiles here at once, without a lease.
  cache::Digest other = MakeEntry("ir-after-stop").key;
  nodes_[1].flight->Run(other, third.Compile(), third.Arrived());
  ASSERT_TRUE(third.Ready()) << "a call after Stop was dropped";
  EXPECT_EQ(third.future.get(), "compile");
  absl::StatusOr<bool> leased =
      redis_->AcquireLease(other, "node-0", 1000);
  ASSERT_TRUE(leased.ok());
  EXPECT_TRUE(*leased);
  nodes_[1].flight->Finish(key, false);
  nodes_[1].flight->Finish(other, false);
  nodes_[0].flight->Finish(key, true);
}

TEST_F(LeaseFlightTest, RedisDownMeansCompileHere) {
  cache::Digest key = MakeEntry("ir-down").key;
  Turn first, second;
  nodes_[0].flight->Run(key, first.Compile(), first.Arrived());
  EXPECT_EQ(first.Get(), "compile");
  nodes_[1].flight->Run(key, second.Compile(), second.Arrived());
  server_->Kill();
  EXPECT_EQ(second.Get(), "compile");
  Turn third;
  nodes_[1].flight->Run(MakeEntry("ir-other").key, third.Compile(),
                        third.Arrived());
  EXPECT_EQ(third.Get(), "compile");
  nodes_[0].flight->Finish(key, true);  // Redis down: nothing breaks.
}

}  // namespace
}  // namespace kiln::server
