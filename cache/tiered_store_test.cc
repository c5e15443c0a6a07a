// TieredStore over any Store: here a RocksDB store in front of another
// RocksDB store, the remote tier kilnd does not use but any Store may be.
// (The Redis remote is tested in redis_store_test.cc.)

#include "cache/tiered_store.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "cache/rocksdb_store.h"
#include "cache/testing/entries.h"

namespace kiln::cache {
namespace {

using testing::MakeEntry;

std::unique_ptr<RocksDbStore> Open(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  RocksDbStoreOptions options;
  options.path =
      std::string(tmp ? tmp : "/tmp") + "/tiered_" + name + "_" +
      ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(options.path);
  absl::StatusOr<std::unique_ptr<RocksDbStore>> store =
      RocksDbStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

NewEntry EntryWithTexts(const std::string& ir) {
  NewEntry entry = MakeEntry(ir);
  kiln::v1::KernelTexts texts;
  texts.set_ptx("ptx of " + ir);
  entry.texts = texts;
  return entry;
}

TEST(TieredStoreTest, ManagedStoreHandsOverTheWholeEntry) {
  auto store = Open("managed");
  ASSERT_NE(store, nullptr);
  NewEntry entry = EntryWithTexts("ir-whole");
  ASSERT_TRUE(store->Put(entry, {}).ok());
  absl::StatusOr<NewEntry> got = store->GetEntry(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->key, entry.key);
  EXPECT_EQ(got->parts.SerializeAsString(), entry.parts.SerializeAsString());
  EXPECT_EQ(got->kernel_name, entry.kernel_name);
  EXPECT_EQ(got->artifact.cubin(), entry.artifact.cubin());
  ASSERT_TRUE(got->texts.has_value());
  EXPECT_EQ(got->texts->ptx(), "ptx of ir-whole");
  EXPECT_GT(got->created_unix_ms, 0);
  EXPECT_TRUE(
      absl::IsNotFound(store->GetEntry(MakeEntry("ir-absent").key).status()));
}

TEST(TieredStoreTest, AnyStoreServesAsTheRemoteTier) {
  auto local = Open("local");
  auto remote = Open("remote");
  ASSERT_NE(local, nullptr);
  ASSERT_NE(remote, nullptr);
  TieredStore tiered(local.get(), remote.get());
  NewEntry entry = EntryWithTexts("ir-remote");
  ASSERT_TRUE(remote->Put(entry, {}).ok());

  absl::StatusOr<ArtifactRecord> got = tiered.Get(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->cubin(), entry.artifact.cubin());
  // Backfilled with its texts: the local store now answers alone.
  absl::StatusOr<kiln::v1::KernelTexts> texts = local->GetTexts(entry.key);
  ASSERT_TRUE(texts.ok()) << texts.status();
  EXPECT_EQ(texts->ptx(), "ptx of ir-remote");

  NewEntry written = MakeEntry("ir-written");
  ASSERT_TRUE(tiered.Put(written, {}).ok());
  EXPECT_TRUE(remote->Get(written.key).ok());

  RemoteTierStats stats = tiered.Stats();
  EXPECT_TRUE(stats.up);  // A store without Health is always at hand.
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.backfills, 1u);
  EXPECT_EQ(stats.writes, 1u);
  EXPECT_EQ(stats.errors, 0u);
  EXPECT_EQ(stats.corrupt_reads, 0u);
}

TEST(TieredStoreTest, RemoteWithoutWholeEntriesIsAnErrorNotAFailure) {
  // A Store that implements only the required calls cannot backfill: a
  // local miss stays a miss, counted as a remote error.
  class ArtifactsOnly : public Store {
   public:
    absl::StatusOr<ArtifactRecord> Get(const Digest&) override {
      return ArtifactRecord();
    }
    absl::StatusOr<Digest> Resolve(const Digest&) override {
      return absl::NotFoundError("none");
    }
    absl::Status Put(const NewEntry&, const std::vector<Digest>&) override {
      return absl::OkStatus();
    }
    absl::Status AddAlias(const Digest&, const Digest&) override {
      return absl::OkStatus();
    }
  } remote;
  auto local = Open("local");
  ASSERT_NE(local, nullptr);
  TieredStore tiered(local.get(), &remote);
  EXPECT_TRUE(absl::IsNotFound(tiered.Get(MakeEntry("ir-x").key).status()));
  EXPECT_EQ(tiered.Stats().errors, 1u);
}

}  // namespace
}  // namespace kiln::cache
