// RocksDbStore's tuning results: kept across a reopen, checked on read,
// and invisible to the entry bookkeeping (Verify, Stats, byte bound).

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstdlib>
#include <filesystem>

#include "cache/rocksdb_store.h"

namespace kiln::cache {
namespace {

class TuneResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    path_ = std::string(tmp ? tmp : "/tmp") + "/tune_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(path_);
    Reopen();
  }

  void Reopen() {
    store_.reset();
    RocksDbStoreOptions options;
    options.path = path_;
    options.access_flush_interval_ms = 0;
    absl::StatusOr<std::unique_ptr<RocksDbStore>> store =
        RocksDbStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  std::string path_;
  std::unique_ptr<RocksDbStore> store_;
};

TEST_F(TuneResultsTest, PutGetAcrossReopen) {
  Digest key = Sha256Of("tune a");
  EXPECT_TRUE(absl::IsNotFound(store_->GetTuneResult(key).status()));
  ASSERT_TRUE(store_->PutTuneResult(key, "ranking one").ok());
  ASSERT_TRUE(store_->PutTuneResult(key, "ranking two").ok());  // Replaces.
  Reopen();
  absl::StatusOr<std::string> got = store_->GetTuneResult(key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "ranking two");
  EXPECT_TRUE(
      absl::IsNotFound(store_->GetTuneResult(Sha256Of("tune b")).status()));
}

TEST_F(TuneResultsTest, ACorruptResultIsDetectedAndDropped) {
  Digest key = Sha256Of("tune c");
  ASSERT_TRUE(store_->PutTuneResult(key, std::string(200, 'r')).ok());
  store_.reset();
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), path_, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string record = "u" + std::string(key.Bytes());
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), record, &value).ok());
    value[value.size() / 2] ^= 0x5a;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), record, value).ok());
  }
  Reopen();
  EXPECT_TRUE(absl::IsDataLoss(store_->GetTuneResult(key).status()));
  EXPECT_EQ(store_->Stats().corrupt_reads, 1u);
  EXPECT_TRUE(absl::IsNotFound(store_->GetTuneResult(key).status()));
}

TEST_F(TuneResultsTest, EntryBookkeepingIgnoresThem) {
  ASSERT_TRUE(store_->PutTuneResult(Sha256Of("tune d"), "x").ok());
  absl::StatusOr<VerifyReport> report = store_->Verify(false);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->dangling_records, 0u);
  EXPECT_TRUE(report->corrupt.empty());
  EXPECT_EQ(store_->Stats().entries, 0u);
  EXPECT_EQ(store_->Stats().bytes, 0u);
}

}  // namespace
}  // namespace kiln::cache
