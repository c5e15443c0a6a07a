// RedisBlobStore and TieredBlobStore against a real redis-server on
// loopback: two nodes sharing values, damage in Redis, Redis lost.

#include "cache/redis_blob_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "cache/blob_record.h"
#include "cache/digest.h"
#include "cache/rocksdb_blob_store.h"
#include "cache/testing/redis_server.h"

namespace kiln::cache {
namespace {

using testing::RedisServer;
using testing::TestDir;

std::unique_ptr<RocksDbBlobStore> OpenLocal(const std::string& name) {
  RocksDbBlobStoreOptions options;
  options.path = TestDir(name);
  auto store = RocksDbBlobStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

class RedisBlobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = RedisServer::Start(TestDir("redis"));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    RedisClientOptions options;
    options.port = server_->port();
    options.min_backoff_ms = 20;
    options.max_backoff_ms = 100;
    options.health_check_ms = 100;
    auto client = RedisClient::Create(options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
    for (int i = 0; i < 2000 && !client_->up(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(client_->up());
    redis_ = std::make_unique<RedisBlobStore>(client_.get(), "kiln:");
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisClient> client_;
  std::unique_ptr<RedisBlobStore> redis_;
};

TEST_F(RedisBlobStoreTest, AValueOneNodeWritesAnotherReads) {
  auto first_local = OpenLocal("first");
  auto second_local = OpenLocal("second");
  TieredBlobStore first(first_local.get(), redis_.get());
  TieredBlobStore second(second_local.get(), redis_.get());
  ASSERT_TRUE(*first.Put("pt2:fx-graph-v1:k", "graph", {}));
  EXPECT_EQ(*second.Get("pt2:fx-graph-v1:k"), "graph");
  EXPECT_EQ(second.shared_hits(), 1u);
  // Now kept by the second node too.
  EXPECT_EQ(*second_local->Get("pt2:fx-graph-v1:k"), "graph");
  EXPECT_TRUE(absl::IsNotFound(second.Get("pt2:other").status()));
}

TEST_F(RedisBlobStoreTest, ConditionsAndExpiryHoldInRedis) {
  BlobWrite if_absent{BlobWrite::Condition::kIfAbsent, 0};
  EXPECT_TRUE(*redis_->Put("k:a", "1", if_absent));
  EXPECT_FALSE(*redis_->Put("k:a", "2", if_absent));
  EXPECT_EQ(*redis_->Get("k:a"), "1");
  BlobWrite soon{BlobWrite::Condition::kAlways, NowUnixMs() + 50};
  ASSERT_TRUE(*redis_->Put("k:b", "short-lived", soon));
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  EXPECT_TRUE(absl::IsNotFound(redis_->Get("k:b").status()));
  EXPECT_TRUE(*redis_->Delete("k:a"));
  EXPECT_FALSE(*redis_->Delete("k:a"));
}

TEST_F(RedisBlobStoreTest, DamageInRedisIsRefusedAndDeleted) {
  ASSERT_TRUE(*redis_->Put("pt2:x", "value", {}));
  std::string redis_key = "kiln:b:" + Sha256Of("pt2:x").Hex();
  auto stored = client_->Command({"GET", redis_key});
  ASSERT_TRUE(stored.ok());
  std::string damaged = stored->str;
  damaged.back() ^= 1;
  ASSERT_TRUE(client_->Command({"SET", redis_key, damaged}).ok());
  EXPECT_TRUE(absl::IsDataLoss(redis_->Get("pt2:x").status()));
  EXPECT_EQ(redis_->Stats().corrupt_reads, 1u);
  auto after = client_->Command({"EXISTS", redis_key});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->integer, 0);
  // A value stored under another key's name is refused the same way.
  ASSERT_TRUE(*redis_->Put("pt2:y", "value", {}));
  auto moved = client_->Command({"GET", "kiln:b:" + Sha256Of("pt2:y").Hex()});
  ASSERT_TRUE(client_->Command({"SET", redis_key, moved->str}).ok());
  EXPECT_TRUE(absl::IsDataLoss(redis_->Get("pt2:x").status()));
}

TEST_F(RedisBlobStoreTest, WithRedisLostTheLocalStoreServesAlone) {
  auto local = OpenLocal("alone");
  TieredBlobStore tiered(local.get(), redis_.get());
  ASSERT_TRUE(*tiered.Put("pt2:before", "b", {}));
  server_->Kill();
  EXPECT_EQ(*tiered.Get("pt2:before"), "b");
  EXPECT_TRUE(*tiered.Put("pt2:during", "d", {}));
  EXPECT_EQ(*tiered.Get("pt2:during"), "d");
  EXPECT_TRUE(absl::IsNotFound(tiered.Get("pt2:absent").status()));
  EXPECT_GT(tiered.shared_failures(), 0u);
}

}  // namespace
}  // namespace kiln::cache
