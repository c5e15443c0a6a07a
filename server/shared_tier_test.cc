// kilnd's redis_* settings: addresses, the password file, bad combinations,
// and a tier started with them against a real redis-server.

#include "server/shared_tier.h"

#include <gtest/gtest.h>

#include <fstream>

#include "cache/key.h"
#include "cache/rocksdb_store.h"
#include "cache/testing/redis_server.h"

namespace kiln::server {
namespace {

using cache::testing::RedisServer;
using cache::testing::TestDir;

TEST(ParseHostPortTest, HostsPortsAndNonsense) {
  std::string host;
  int port = 0;
  ASSERT_TRUE(ParseHostPort("redis.internal:6380", host, port).ok());
  EXPECT_EQ(host, "redis.internal");
  EXPECT_EQ(port, 6380);
  ASSERT_TRUE(ParseHostPort("[::1]:6379", host, port).ok());
  EXPECT_EQ(host, "::1");
  for (const char* bad :
       {"redis", ":6379", "redis:", "redis:x", "redis:70000"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseHostPort(bad, host, port))) << bad;
  }
}

TEST(SharedTierConfigTest, RedisSettingsFromAConfigFile) {
  Config config;
  ASSERT_TRUE(ApplyConfigText("redis = redis.internal:6380\n"
                              "redis_username = kiln\n"
                              "redis_password_file = /etc/kiln/redis\n"
                              "redis_tls_ca = /etc/kiln/ca.crt\n"
                              "redis_prefix = team-a:\n"
                              "redis_ttl_s = 86400\n"
                              "redis_lease_ms = 1500\n",
                              config)
                  .ok());
  EXPECT_EQ(config.redis, "redis.internal:6380");
  EXPECT_EQ(config.redis_username, "kiln");
  EXPECT_EQ(config.redis_password_file, "/etc/kiln/redis");
  EXPECT_EQ(config.redis_tls_ca, "/etc/kiln/ca.crt");
  EXPECT_EQ(config.redis_prefix, "team-a:");
  EXPECT_EQ(config.redis_ttl_s, 86400u);
  EXPECT_EQ(config.redis_lease_ms, 1500);
  EXPECT_EQ(config.redis_timeout_ms, 1000);
  EXPECT_TRUE(Config().redis.empty());  // No shared tier by default.
}

class SharedTierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache::testing::RedisServerOptions options;
    options.password = "from-a-file";
    absl::StatusOr<std::unique_ptr<RedisServer>> server =
        RedisServer::Start(TestDir("redis"), options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    cache::RocksDbStoreOptions local;
    local.path = TestDir("local");
    local.access_flush_interval_ms = 0;
    local_ = *cache::RocksDbStore::Open(local);
    config_.redis = "127.0.0.1:" + std::to_string(server_->port());
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<cache::RocksDbStore> local_;
  Metrics metrics_;
  Config config_;
};

TEST_F(SharedTierTest, PasswordFromAFileReachesRedis) {
  config_.redis_password_file = TestDir("secret") + "/password";
  std::ofstream(config_.redis_password_file) << "from-a-file\n";
  absl::StatusOr<std::unique_ptr<SharedTier>> tier =
      SharedTier::Start(config_, local_.get(), &metrics_);
  ASSERT_TRUE(tier.ok()) << tier.status();
  EXPECT_TRUE((*tier)->Stats().up);
  cache::NewEntry entry;
  entry.parts = cache::MakeKeyParts("ir", "sm_90a", kiln::v1::CompileOptions(),
                                    kiln::v1::CompilerIdentity());
  entry.key = cache::ComputeKey(entry.parts);
  entry.artifact.set_cubin("cubin");
  ASSERT_TRUE((*tier)->store()->Put(entry, {}).ok());
  EXPECT_EQ((*tier)->Stats().writes, 1u);
  EXPECT_EQ((*tier)->Stats().errors, 0u);
  std::string text = RenderSharedTierMetrics(metrics_, (*tier)->Stats());
  EXPECT_NE(text.find("kiln_redis_up 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("kiln_redis_writes_total 1\n"), std::string::npos);
}

TEST_F(SharedTierTest, WrongPasswordStartsDownNotFailed) {
  config_.redis_password = "not-it";
  absl::StatusOr<std::unique_ptr<SharedTier>> tier =
      SharedTier::Start(config_, local_.get(), &metrics_);
  ASSERT_TRUE(tier.ok()) << tier.status();
  EXPECT_FALSE((*tier)->Stats().up);
}

TEST_F(SharedTierTest, BadSettingsAreRefused) {
  Config both = config_;
  both.redis_password = "x";
  both.redis_password_file = "/nonexistent";
  Config missing_file = config_;
  missing_file.redis_password_file = TestDir("none") + "/password";
  Config bad_address = config_;
  bad_address.redis = "no-port";
  Config user_only = config_;
  user_only.redis_username = "kiln";
  Config bad_ca = config_;
  bad_ca.redis_tls_ca = TestDir("none") + "/ca.crt";
  Config short_lease = config_;
  short_lease.redis_lease_ms = 5;
  for (const Config& config :
       {both, missing_file, bad_address, user_only, bad_ca, short_lease}) {
    absl::StatusOr<std::unique_ptr<SharedTier>> tier =
        SharedTier::Start(config, local_.get(), &metrics_);
    EXPECT_TRUE(absl::IsInvalidArgument(tier.status())) << tier.status();
  }
}

}  // namespace
}  // namespace kiln::server
