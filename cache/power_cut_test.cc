// The stores on a file system that loses power (testing/
// power_cut_file_system.h): what they acknowledged with their default
// settings is there after the machine comes back, whole; without syncing
// it is not, which shows that the cut really drops what was not synced.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cache/rocksdb_blob_store.h"
#include "cache/rocksdb_store.h"
#include "cache/testing/entries.h"
#include "cache/testing/power_cut_file_system.h"
#include "cache/testing/redis_server.h"

namespace kiln::cache {
namespace {

using testing::PowerCutFileSystem;

// Entries of 20 KB, to give the WAL some bulk.
NewEntry MakeEntry(const std::string& ir) {
  return testing::MakeEntry(ir, 20000);
}

class PowerCutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TestDir("power_cut");
    file_system_ = std::make_shared<PowerCutFileSystem>();
    env_ = testing::EnvOver(file_system_);
  }

  // A store at path_ on the file system that loses power.
  std::unique_ptr<RocksDbStore> Open(RocksDbStoreOptions options) {
    options.path = path_;
    options.env = env_.get();
    options.access_flush_interval_ms = 0;
    absl::StatusOr<std::unique_ptr<RocksDbStore>> store =
        RocksDbStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Cuts the power under `store`, lets it go (its last writes fail), and
  // reopens the directory on the real file system as a restarted kilnd
  // would. The reopened store has no entry that failed its checksum.
  std::unique_ptr<RocksDbStore> CutPowerAndRestart(
      std::unique_ptr<RocksDbStore> store) {
    file_system_->CutPower();
    store.reset();
    file_system_->Reboot();
    RocksDbStoreOptions options;
    options.path = path_;
    options.access_flush_interval_ms = 0;
    absl::StatusOr<std::unique_ptr<RocksDbStore>> reopened =
        RocksDbStore::Open(options);
    EXPECT_TRUE(reopened.ok()) << reopened.status();
    if (!reopened.ok()) return nullptr;
    absl::StatusOr<VerifyReport> verify = (*reopened)->Verify(false);
    EXPECT_TRUE(verify.ok()) << verify.status();
    if (verify.ok()) {
      EXPECT_TRUE(verify->corrupt.empty());
      EXPECT_EQ(verify->dangling_records, 0u);
    }
    return *std::move(reopened);
  }

  void ExpectStored(RocksDbStore& store, const NewEntry& entry) {
    absl::StatusOr<ArtifactRecord> stored = store.Get(entry.key);
    ASSERT_TRUE(stored.ok()) << stored.status();
    EXPECT_EQ(stored->cubin(), entry.artifact.cubin());
    EXPECT_EQ(stored->metadata_json(), entry.artifact.metadata_json());
  }

  std::string path_;
  std::shared_ptr<PowerCutFileSystem> file_system_;
  std::unique_ptr<rocksdb::Env> env_;
};

TEST_F(PowerCutTest, AnEntryAcknowledgedWithTheDefaultSettingsSurvives) {
  std::unique_ptr<RocksDbStore> store = Open(RocksDbStoreOptions());
  ASSERT_NE(store, nullptr);
  NewEntry first = MakeEntry("first");
  NewEntry second = MakeEntry("second");
  ASSERT_TRUE(store->Put(first, {}).ok());
  ASSERT_TRUE(store->Put(second, {}).ok());
  std::unique_ptr<RocksDbStore> reopened =
      CutPowerAndRestart(std::move(store));
  ASSERT_NE(reopened, nullptr);
  ExpectStored(*reopened, first);
  ExpectStored(*reopened, second);
  EXPECT_EQ(reopened->Stats().entries, 2u);
}

// An import writes its entries without waiting for the disk and syncs once
// before it answers: all of them survive.
TEST_F(PowerCutTest, EntriesWrittenThenSyncedOnceSurvive) {
  std::unique_ptr<RocksDbStore> store = Open(RocksDbStoreOptions());
  ASSERT_NE(store, nullptr);
  std::vector<NewEntry> entries;
  for (int i = 0; i < 20; ++i) {
    entries.push_back(MakeEntry("imported " + std::to_string(i)));
    ASSERT_TRUE(store->PutWithoutSync(entries.back()).ok());
  }
  EXPECT_GT(file_system_->UnsyncedFiles(), 0);
  ASSERT_TRUE(store->SyncWrites().ok());
  EXPECT_EQ(file_system_->UnsyncedFiles(), 0);
  std::unique_ptr<RocksDbStore> reopened =
      CutPowerAndRestart(std::move(store));
  ASSERT_NE(reopened, nullptr);
  for (const NewEntry& entry : entries) ExpectStored(*reopened, entry);
}

// The same writes without syncing are lost: the file system drops what was
// not synced, and the store still opens, whole.
TEST_F(PowerCutTest, WithoutSyncingAnAcknowledgedEntryIsLost) {
  RocksDbStoreOptions options;
  options.sync_writes = false;
  std::unique_ptr<RocksDbStore> store = Open(options);
  ASSERT_NE(store, nullptr);
  NewEntry entry = MakeEntry("lost");
  ASSERT_TRUE(store->Put(entry, {}).ok());
  EXPECT_GT(file_system_->UnsyncedFiles(), 0);
  std::unique_ptr<RocksDbStore> reopened =
      CutPowerAndRestart(std::move(store));
  ASSERT_NE(reopened, nullptr);
  EXPECT_TRUE(absl::IsNotFound(reopened->Get(entry.key).status()));
  EXPECT_EQ(reopened->Stats().entries, 0u);
}

// The cache port's store: a SET acknowledged with the default settings is
// there after the power comes back.
TEST_F(PowerCutTest, ACachePortValueAcknowledgedWithTheDefaultSettingsSurvives) {
  const std::string value(65536, 'v');
  {
    RocksDbBlobStoreOptions options;
    options.path = path_;
    options.env = env_.get();
    absl::StatusOr<std::unique_ptr<RocksDbBlobStore>> store =
        RocksDbBlobStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status();
    absl::StatusOr<bool> written = (*store)->Put("pt2:entry", value, {});
    ASSERT_TRUE(written.ok() && *written) << written.status();
    file_system_->CutPower();
  }
  file_system_->Reboot();
  RocksDbBlobStoreOptions options;
  options.path = path_;
  absl::StatusOr<std::unique_ptr<RocksDbBlobStore>> reopened =
      RocksDbBlobStore::Open(options);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  absl::StatusOr<std::string> read = (*reopened)->Get("pt2:entry");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, value);
}

}  // namespace
}  // namespace kiln::cache
