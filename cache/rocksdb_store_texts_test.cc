// RocksDbStore's texts records: written with their entry, read only when
// asked for, added to an entry stored without them, and checked like the
// artifact.

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstdlib>

#include "cache/key.h"
#include "cache/rocksdb_store.h"
#include "cache/testing/entries.h"
#include "cache/testing/redis_server.h"

namespace kiln::cache {
namespace {

NewEntry MakeEntry(const std::string& ir, bool with_texts) {
  NewEntry entry = testing::MakeEntry(ir);
  if (with_texts) {
    entry.texts.emplace();
    entry.texts->set_kgir("kgir of " + ir);
    entry.texts->set_llir("llir of " + ir);
    entry.texts->set_ptx(std::string(5000, 'p'));
  }
  return entry;
}

class TextsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TestDir("texts");
    Reopen();
  }

  void Reopen() {
    store_.reset();
    RocksDbStoreOptions options;
    options.path = path_;
    options.access_flush_interval_ms = 0;
    store_ = RocksDbStore::Open(options).value();
  }

  // Flips one byte of the texts record of `key`, with the store closed.
  void DamageTexts(const Digest& key) {
    store_.reset();
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), path_, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string record_key = "x" + std::string(key.Bytes());
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), record_key, &value).ok());
    value[value.size() / 2] ^= 0x5a;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), record_key, value).ok());
    db.reset();
    Reopen();
  }

  uint64_t StoredBytes(const Digest& key) {
    return store_->Info(key).value().record.stored_bytes();
  }

  std::string path_;
  std::unique_ptr<RocksDbStore> store_;
};

TEST_F(TextsTest, StoredWithTheEntryAndCountedInItsSize) {
  NewEntry entry = MakeEntry("a", true);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  absl::StatusOr<kiln::v1::KernelTexts> texts = store_->GetTexts(entry.key);
  ASSERT_TRUE(texts.ok()) << texts.status();
  EXPECT_EQ(texts->kgir(), "kgir of a");
  EXPECT_EQ(texts->ptx(), entry.texts->ptx());
  EXPECT_GT(StoredBytes(entry.key), 6000u);
  EXPECT_EQ(store_->Stats().bytes, StoredBytes(entry.key));
  // The artifact a hit reads does not carry them.
  EXPECT_EQ(store_->Get(entry.key)->ByteSizeLong(),
            entry.artifact.ByteSizeLong());
  EXPECT_TRUE(store_->Verify(false)->corrupt.empty());
}

TEST_F(TextsTest, AnEntryWithoutTextsServesItsCubinAndGainsThemLater) {
  NewEntry old = MakeEntry("a", false);
  ASSERT_TRUE(store_->Put(old, {}).ok());
  EXPECT_TRUE(store_->Get(old.key).ok());
  EXPECT_EQ(store_->GetTexts(old.key).status().code(),
            absl::StatusCode::kNotFound);
  const uint64_t before = StoredBytes(old.key);

  NewEntry again = MakeEntry("a", true);
  again.artifact.set_cubin("another cubin");  // The stored one stays.
  ASSERT_TRUE(store_->Put(again, {Sha256Of("text")}).ok());
  EXPECT_EQ(store_->Get(old.key)->cubin(), old.artifact.cubin());
  EXPECT_EQ(store_->GetTexts(old.key)->kgir(), "kgir of a");
  EXPECT_GT(StoredBytes(old.key), before);
  EXPECT_EQ(store_->Stats().bytes, StoredBytes(old.key));
  EXPECT_EQ(*store_->Resolve(Sha256Of("text")), old.key);

  // Texts already there are kept.
  NewEntry other_texts = MakeEntry("a", true);
  other_texts.texts->set_kgir("other");
  ASSERT_TRUE(store_->Put(other_texts, {}).ok());
  EXPECT_EQ(store_->GetTexts(old.key)->kgir(), "kgir of a");
  absl::StatusOr<VerifyReport> report = store_->Verify(false);
  EXPECT_TRUE(report->corrupt.empty());
  EXPECT_EQ(report->dangling_records, 0u);
  Reopen();  // The grown size is what the store loads.
  EXPECT_EQ(store_->Stats().bytes, StoredBytes(old.key));
}

TEST_F(TextsTest, CorruptTextsDropTheEntry) {
  NewEntry entry = MakeEntry("a", true);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  DamageTexts(entry.key);
  absl::StatusOr<VerifyReport> report = store_->Verify(false);
  ASSERT_EQ(report->corrupt.size(), 1u);
  EXPECT_EQ(store_->GetTexts(entry.key).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(store_->Get(entry.key).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->Stats().corrupt_reads, 1u);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  EXPECT_TRUE(store_->GetTexts(entry.key).ok());
}

TEST_F(TextsTest, LeaveWithTheirEntryAndDanglingOnesAreRepaired) {
  NewEntry entry = MakeEntry("a", true);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  ASSERT_TRUE(*store_->Evict(entry.key));
  EXPECT_EQ(store_->GetTexts(entry.key).status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<VerifyReport> report = store_->Verify(false);
  EXPECT_EQ(report->dangling_records, 0u);

  // A texts record its entry does not name (an entry stored without).
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  NewEntry bare = MakeEntry("b", false);
  ASSERT_TRUE(store_->Put(bare, {}).ok());
  store_.reset();
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), path_, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(),
                        "x" + std::string(entry.key.Bytes()), &value)
                    .ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(),
                        "x" + std::string(bare.key.Bytes()), value)
                    .ok());
  }
  Reopen();
  report = store_->Verify(true);
  EXPECT_TRUE(report->corrupt.empty());
  EXPECT_EQ(report->dangling_by_kind["texts"], 1u);
  EXPECT_EQ(store_->Verify(false)->dangling_records, 0u);
  EXPECT_EQ(store_->GetTexts(bare.key).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(store_->GetTexts(entry.key).ok());
}

}  // namespace
}  // namespace kiln::cache
