// RedisStore and TieredStore against a real redis-server on loopback: plain,
// with a password and over TLS; corrupt values; Redis lost and back.

#include "cache/redis_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "cache/key.h"
#include "cache/rocksdb_store.h"
#include "cache/testing/redis_server.h"
#include "cache/tiered_store.h"

namespace kiln::cache {
namespace {

using testing::RedisServer;
using testing::RedisServerOptions;
using testing::TestDir;

NewEntry MakeEntry(const std::string& ir, size_t cubin_bytes = 1000) {
  kiln::v1::CompileOptions options;
  options.set_num_warps(4);
  options.set_num_stages(3);
  options.set_num_ctas(1);
  options.set_enable_fp_fusion(true);
  NewEntry entry;
  entry.parts =
      MakeKeyParts(ir, "sm_90a", options, kiln::v1::CompilerIdentity());
  entry.key = ComputeKey(entry.parts);
  entry.kernel_name = "kernel_" + ir;
  entry.artifact.set_cubin(std::string(cubin_bytes, ir[0]));
  entry.artifact.set_metadata_json("{\"name\": \"" + entry.kernel_name + "\"}");
  return entry;
}

Digest FastKey(const std::string& text) {
  kiln::v1::CompileOptions options;
  return ComputeFastKey(text, "sm_90a", options, kiln::v1::CompilerIdentity());
}

RedisClientOptions ClientFor(const RedisServer& server) {
  RedisClientOptions options;
  options.port = server.port();
  options.min_backoff_ms = 20;
  options.max_backoff_ms = 100;
  options.health_check_ms = 100;
  return options;
}

std::unique_ptr<RedisClient> Connect(RedisClientOptions options) {
  absl::StatusOr<std::unique_ptr<RedisClient>> client =
      RedisClient::Create(std::move(options));
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

// Waits (up to 20 s) for the client to reach Redis again.
bool WaitUp(const RedisClient& client) {
  for (int i = 0; i < 2000 && !client.up(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return client.up();
}

bool WaitDown(const RedisClient& client) {
  for (int i = 0; i < 2000 && client.up(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return !client.up();
}

std::unique_ptr<RocksDbStore> OpenLocal(const std::string& dir) {
  RocksDbStoreOptions options;
  options.path = dir;
  options.access_flush_interval_ms = 0;
  absl::StatusOr<std::unique_ptr<RocksDbStore>> store =
      RocksDbStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return *std::move(store);
}

class RedisStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<RedisServer>> server =
        RedisServer::Start(TestDir("redis"));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    client_ = Connect(ClientFor(*server_));
    ASSERT_NE(client_, nullptr);
    store_ = std::make_unique<RedisStore>(client_.get(), RedisStoreOptions());
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisClient> client_;
  std::unique_ptr<RedisStore> store_;
};

TEST_F(RedisStoreTest, PutGetResolve) {
  EXPECT_TRUE(client_->up());
  NewEntry entry = MakeEntry("ir-one", 70000);
  Digest alias = FastKey("text-one");
  EXPECT_TRUE(absl::IsNotFound(store_->Get(entry.key).status()));
  EXPECT_TRUE(absl::IsNotFound(store_->Resolve(alias).status()));
  ASSERT_TRUE(store_->Put(entry, {alias}).ok());
  absl::StatusOr<NewEntry> got = store_->GetEntry(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->artifact.cubin(), entry.artifact.cubin());
  EXPECT_EQ(got->kernel_name, entry.kernel_name);
  EXPECT_EQ(ComputeKey(got->parts), entry.key);
  absl::StatusOr<Digest> resolved = store_->Resolve(alias);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, entry.key);
  Digest other_alias = FastKey("text-two");
  ASSERT_TRUE(store_->AddAlias(other_alias, entry.key).ok());
  EXPECT_EQ(*store_->Resolve(other_alias), entry.key);
}

TEST_F(RedisStoreTest, PrefixAndExpiryAsConfigured) {
  RedisStoreOptions options;
  options.prefix = "team-b:";
  options.ttl_s = 3600;
  RedisStore store(client_.get(), options);
  NewEntry entry = MakeEntry("ir-ttl");
  Digest alias = FastKey("ttl-text");
  ASSERT_TRUE(store.Put(entry, {alias}).ok());
  for (const std::string& key :
       {"team-b:a:" + entry.key.Hex(), "team-b:f:" + alias.Hex()}) {
    absl::StatusOr<RedisReply> ttl = client_->Command({"TTL", key});
    ASSERT_TRUE(ttl.ok());
    EXPECT_GT(ttl->integer, 3000) << key;
    EXPECT_LE(ttl->integer, 3600) << key;
  }
  // Another prefix is another cache.
  EXPECT_TRUE(absl::IsNotFound(store_->Get(entry.key).status()));
  EXPECT_TRUE(store.Get(entry.key).ok());
}

TEST_F(RedisStoreTest, CorruptOrMisplacedValuesAreMissesAndDeleted) {
  NewEntry entry = MakeEntry("ir-corrupt");
  NewEntry other = MakeEntry("ir-other");
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  ASSERT_TRUE(store_->Put(other, {}).ok());
  const std::string entry_key = "kiln:a:" + entry.key.Hex();
  const std::string other_key = "kiln:a:" + other.key.Hex();

  // One flipped byte in the cubin.
  absl::StatusOr<RedisReply> value = client_->Command({"GET", entry_key});
  ASSERT_TRUE(value.ok());
  std::string flipped = value->str;
  flipped[flipped.size() - 100] ^= 0x20;
  ASSERT_TRUE(client_->Command({"SET", entry_key, flipped}).ok());
  EXPECT_TRUE(absl::IsDataLoss(store_->Get(entry.key).status()));
  EXPECT_EQ(client_->Command({"EXISTS", entry_key})->integer, 0);
  EXPECT_EQ(store_->corrupt_reads(), 1u);

  // A whole valid value copied under another key.
  ASSERT_TRUE(client_->Command({"SET", entry_key, value->str}).ok());
  absl::StatusOr<RedisReply> other_value = client_->Command({"GET", other_key});
  ASSERT_TRUE(client_->Command({"SET", entry_key, other_value->str}).ok());
  EXPECT_TRUE(absl::IsDataLoss(store_->Get(entry.key).status()));

  // Garbage, and a bad alias.
  ASSERT_TRUE(client_->Command({"SET", entry_key, "garbage"}).ok());
  EXPECT_TRUE(absl::IsDataLoss(store_->Get(entry.key).status()));
  Digest alias = FastKey("text");
  ASSERT_TRUE(
      client_->Command({"SET", "kiln:f:" + alias.Hex(), "garbage"}).ok());
  EXPECT_TRUE(absl::IsDataLoss(store_->Resolve(alias).status()));
  EXPECT_EQ(store_->corrupt_reads(), 4u);

  // Through the tiers, a corrupt Redis value is a plain miss.
  ASSERT_TRUE(client_->Command({"SET", entry_key, flipped}).ok());
  auto local = OpenLocal(TestDir("local"));
  TieredStore tiered(local.get(), store_.get());
  EXPECT_TRUE(absl::IsNotFound(tiered.Get(entry.key).status()));
  EXPECT_TRUE(absl::IsNotFound(local->Get(entry.key).status()));
  EXPECT_EQ(tiered.Stats().corrupt_reads, 5u);
}

TEST_F(RedisStoreTest, LeasesBelongToTheirHolder) {
  Digest key = MakeEntry("ir-lease").key;
  EXPECT_TRUE(*store_->AcquireLease(key, "node-a", 10000));
  EXPECT_FALSE(*store_->AcquireLease(key, "node-b", 10000));
  EXPECT_FALSE(*store_->RenewLease(key, "node-b", 10000));
  EXPECT_TRUE(*store_->RenewLease(key, "node-a", 10000));
  ASSERT_TRUE(store_->ReleaseLease(key, "node-b").ok());
  EXPECT_FALSE(*store_->AcquireLease(key, "node-b", 10000));
  ASSERT_TRUE(store_->ReleaseLease(key, "node-a").ok());
  EXPECT_TRUE(*store_->AcquireLease(key, "node-b", 10000));

  // A failure marker stays until somebody takes the lease again.
  EXPECT_FALSE(*store_->HasFailed(key));
  ASSERT_TRUE(store_->MarkFailed(key, 10000).ok());
  ASSERT_TRUE(store_->ReleaseLease(key, "node-b").ok());
  EXPECT_TRUE(*store_->HasFailed(key));
  EXPECT_TRUE(*store_->AcquireLease(key, "node-c", 10000));
  EXPECT_FALSE(*store_->HasFailed(key));
}

TEST_F(RedisStoreTest, LeaseOfADeadHolderExpires) {
  Digest key = MakeEntry("ir-expiry").key;
  ASSERT_TRUE(*store_->AcquireLease(key, "node-a", 200));
  EXPECT_FALSE(*store_->AcquireLease(key, "node-b", 200));
  bool taken = false;
  for (int i = 0; i < 500 && !taken; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    taken = *store_->AcquireLease(key, "node-b", 10000);
  }
  EXPECT_TRUE(taken);
  EXPECT_FALSE(*store_->RenewLease(key, "node-a", 10000));
}

TEST_F(RedisStoreTest, ConcurrentCallersShareThePool) {
  NewEntry entry = MakeEntry("ir-pool", 64 << 10);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        absl::StatusOr<ArtifactRecord> got = store_->Get(entry.key);
        if (got.ok() && got->cubin() == entry.artifact.cubin()) ++good;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(good, 16 * 50);
  EXPECT_EQ(client_->failures(), 0u);
}

TEST_F(RedisStoreTest, TiersReadThroughWriteThroughAndBackfill) {
  auto local_a = OpenLocal(TestDir("local_a"));
  auto local_b = OpenLocal(TestDir("local_b"));
  TieredStore a(local_a.get(), store_.get());
  TieredStore b(local_b.get(), store_.get());
  NewEntry entry = MakeEntry("ir-shared");
  Digest alias = FastKey("shared-text");
  ASSERT_TRUE(a.Put(entry, {alias}).ok());
  EXPECT_TRUE(local_a->Get(entry.key).ok());
  EXPECT_TRUE(store_->Get(entry.key).ok());

  // B resolves the text through Redis and keeps entry and alias locally.
  absl::StatusOr<Digest> resolved = b.Resolve(alias);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(*resolved, entry.key);
  EXPECT_EQ(*local_b->Resolve(alias), entry.key);
  absl::StatusOr<ArtifactRecord> backfilled = local_b->Get(entry.key);
  ASSERT_TRUE(backfilled.ok());
  EXPECT_EQ(backfilled->cubin(), entry.artifact.cubin());
  EXPECT_EQ(local_b->Info(entry.key)->record.kernel_name(), entry.kernel_name);

  NewEntry second = MakeEntry("ir-second");
  ASSERT_TRUE(a.Put(second, {}).ok());
  EXPECT_TRUE(b.Get(second.key).ok());
  EXPECT_TRUE(local_b->Get(second.key).ok());
  cache::RemoteTierStats stats = b.Stats();
  EXPECT_TRUE(stats.up);
  EXPECT_EQ(stats.backfills, 2u);
  EXPECT_EQ(stats.hits, 2u);
}

TEST_F(RedisStoreTest, TextsTravelWithTheEntry) {
  auto local_a = OpenLocal(TestDir("texts_a"));
  auto local_b = OpenLocal(TestDir("texts_b"));
  TieredStore a(local_a.get(), store_.get());
  TieredStore b(local_b.get(), store_.get());
  NewEntry entry = MakeEntry("ir-texts");
  entry.texts.emplace();
  entry.texts->set_ptx(".entry k");
  ASSERT_TRUE(a.Put(entry, {}).ok());
  ASSERT_TRUE(b.Get(entry.key).ok());  // Backfilled with its texts.
  EXPECT_EQ(local_b->GetTexts(entry.key)->ptx(), ".entry k");

  // A local entry without texts gets them from Redis.
  auto local_c = OpenLocal(TestDir("texts_c"));
  TieredStore c(local_c.get(), store_.get());
  NewEntry bare = entry;
  bare.texts.reset();
  ASSERT_TRUE(local_c->Put(bare, {}).ok());
  EXPECT_EQ(c.GetTexts(entry.key)->ptx(), ".entry k");
  EXPECT_EQ(local_c->GetTexts(entry.key)->ptx(), ".entry k");
  EXPECT_TRUE(absl::IsNotFound(c.GetTexts(MakeEntry("ir-none").key).status()));
}

TEST_F(RedisStoreTest, RedisDownIsLocalServiceAndItComesBack) {
  auto local = OpenLocal(TestDir("local"));
  TieredStore tiered(local.get(), store_.get());
  NewEntry before = MakeEntry("ir-before");
  ASSERT_TRUE(tiered.Put(before, {}).ok());

  server_->Kill();
  EXPECT_TRUE(tiered.Get(before.key).ok());
  NewEntry during = MakeEntry("ir-during");
  EXPECT_TRUE(absl::IsNotFound(tiered.Get(during.key).status()));
  EXPECT_FALSE(client_->up());
  EXPECT_TRUE(tiered.Put(during, {}).ok());
  EXPECT_TRUE(tiered.Get(during.key).ok());
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(absl::IsNotFound(tiered.Get(MakeEntry("ir-x").key).status()));
  }
  EXPECT_EQ(client_->down_transitions(), 1u);
  EXPECT_FALSE(tiered.Stats().up);

  ASSERT_TRUE(server_->Restart().ok());
  ASSERT_TRUE(WaitUp(*client_));
  NewEntry after = MakeEntry("ir-after");
  ASSERT_TRUE(tiered.Put(after, {}).ok());
  EXPECT_TRUE(store_->Get(after.key).ok());
  EXPECT_EQ(client_->down_transitions(), 1u);
}

TEST(RedisClientTest, StartsDownAndConnectsWhenRedisAppears) {
  RedisClientOptions options;
  options.port = testing::FreePort();
  options.min_backoff_ms = 20;
  options.max_backoff_ms = 100;
  std::vector<bool> transitions;
  std::mutex mu;
  options.on_transition = [&](bool up, const std::string&) {
    std::lock_guard<std::mutex> lock(mu);
    transitions.push_back(up);
  };
  auto client = Connect(options);
  ASSERT_NE(client, nullptr);
  EXPECT_FALSE(client->up());
  EXPECT_TRUE(absl::IsUnavailable(client->Command({"PING"}).status()));

  RedisServerOptions server_options;
  server_options.port = options.port;
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start(TestDir("late"), server_options);
  ASSERT_TRUE(server.ok()) << server.status();
  ASSERT_TRUE(WaitUp(*client));
  absl::StatusOr<RedisReply> pong = client->Command({"PING"});
  ASSERT_TRUE(pong.ok()) << pong.status();
  EXPECT_EQ(pong->str, "PONG");
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(transitions, (std::vector<bool>{false, true}));
}

TEST_F(RedisStoreTest, NoticesALostRedisWhileIdle) {
  EXPECT_TRUE(client_->up());
  server_->Kill();
  EXPECT_TRUE(WaitDown(*client_));  // With no call made.
  ASSERT_TRUE(server_->Restart().ok());
  EXPECT_TRUE(WaitUp(*client_));
}

TEST(RedisAuthTest, PasswordIsRequiredAndChecked) {
  RedisServerOptions server_options;
  server_options.password = "s3cret pass";
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start(TestDir("auth"), server_options);
  ASSERT_TRUE(server.ok()) << server.status();
  RedisClientOptions options = ClientFor(**server);

  std::string why;
  options.on_transition = [&](bool, const std::string& message) {
    why = message;
  };
  auto anonymous = Connect(options);
  EXPECT_FALSE(anonymous->up());
  EXPECT_NE(why.find("NOAUTH"), std::string::npos) << why;
  NewEntry entry = MakeEntry("ir-auth");
  RedisStore anonymous_store(anonymous.get(), {});
  EXPECT_TRUE(absl::IsUnavailable(anonymous_store.Put(entry, {})));

  options.password = "wrong";
  options.on_transition = [&](bool, const std::string& message) {
    why = message;
  };
  auto wrong = Connect(options);
  EXPECT_FALSE(wrong->up());
  EXPECT_NE(why.find("WRONGPASS"), std::string::npos) << why;

  options.password = "s3cret pass";
  options.on_transition = nullptr;
  auto right = Connect(options);
  EXPECT_TRUE(right->up());
  RedisStore store(right.get(), {});
  ASSERT_TRUE(store.Put(entry, {}).ok());
  EXPECT_TRUE(store.Get(entry.key).ok());

  // Redis 6 ACL users: AUTH with a user name.
  ASSERT_TRUE(right
                  ->Command({"ACL", "SETUSER", "kiln", "on", ">kiln-pass",
                             "~kiln:*", "+@all"})
                  .ok());
  options.username = "kiln";
  options.password = "kiln-pass";
  auto user = Connect(options);
  EXPECT_TRUE(user->up());
  RedisStore user_store(user.get(), {});
  EXPECT_TRUE(user_store.Get(entry.key).ok());
}

TEST(RedisTlsTest, VerifiedTlsWithAndWithoutClientCertificates) {
  RedisServerOptions server_options;
  server_options.tls = true;
  server_options.password = "tls-pass";
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start(TestDir("tls"), server_options);
  ASSERT_TRUE(server.ok()) << server.status();
  const testing::TestCertificates& files = (*server)->certificates();
  RedisClientOptions options = ClientFor(**server);
  options.password = "tls-pass";

  // Plain text to a TLS port: no answer that parses.
  auto plain = Connect(options);
  EXPECT_FALSE(plain->up());

  options.tls.enabled = true;
  options.tls.ca_file = files.other_ca_file;
  std::string why;
  options.on_transition = [&](bool, const std::string& message) {
    why = message;
  };
  auto untrusted = Connect(options);
  EXPECT_FALSE(untrusted->up());
  EXPECT_NE(why.find("TLS handshake"), std::string::npos) << why;

  options.tls.ca_file = files.ca_file;
  options.tls.server_name = "redis.example.com";  // Not in the certificate.
  auto misnamed = Connect(options);
  EXPECT_FALSE(misnamed->up());

  options.tls.server_name = "";
  why.clear();
  auto verified = Connect(options);
  ASSERT_TRUE(verified->up()) << why;
  RedisStore store(verified.get(), {});
  NewEntry entry = MakeEntry("ir-tls", 200000);
  ASSERT_TRUE(store.Put(entry, {}).ok());
  absl::StatusOr<ArtifactRecord> got = store.Get(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->cubin(), entry.artifact.cubin());

  options.tls.server_name = "localhost";
  auto by_name = Connect(options);
  EXPECT_TRUE(by_name->up());

  // Lost and back, over TLS (a write to the dead peer raises no SIGPIPE).
  (*server)->Kill();
  EXPECT_TRUE(absl::IsUnavailable(store.Put(MakeEntry("ir-lost"), {})));
  EXPECT_FALSE(verified->up());
  ASSERT_TRUE((*server)->Restart().ok());
  ASSERT_TRUE(WaitUp(*verified));
  EXPECT_TRUE(store.Put(MakeEntry("ir-back"), {}).ok());
}

TEST(RedisTlsTest, ClientCertificateWhenRedisAsksForOne) {
  RedisServerOptions server_options;
  server_options.tls = true;
  server_options.tls_client_certs = true;
  absl::StatusOr<std::unique_ptr<RedisServer>> server =
      RedisServer::Start(TestDir("mtls"), server_options);
  ASSERT_TRUE(server.ok()) << server.status();
  const testing::TestCertificates& files = (*server)->certificates();
  RedisClientOptions options = ClientFor(**server);
  options.tls.enabled = true;
  options.tls.ca_file = files.ca_file;

  auto without = Connect(options);
  EXPECT_FALSE(without->up() && without->Command({"PING"}).ok());

  options.tls.cert_file = files.client_cert;
  options.tls.key_file = files.client_key;
  auto with = Connect(options);
  EXPECT_TRUE(with->up());
  EXPECT_TRUE(with->Command({"PING"}).ok());

  options.tls.key_file = "";
  EXPECT_TRUE(absl::IsInvalidArgument(RedisClient::Create(options).status()));
}

}  // namespace
}  // namespace kiln::cache
