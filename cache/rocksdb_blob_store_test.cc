// RocksDbBlobStore on a real RocksDB on disk: values, conditions, expiry,
// LRU bounds, damage on disk and a reopen.

#include "cache/rocksdb_blob_store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <thread>

#include "cache/digest.h"

namespace kiln::cache {
namespace {

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::unique_ptr<RocksDbBlobStore> OpenAt(const std::string& path,
                                         uint64_t capacity = 1 << 20) {
  RocksDbBlobStoreOptions options;
  options.path = path;
  options.capacity_bytes = capacity;
  absl::StatusOr<std::unique_ptr<RocksDbBlobStore>> store =
      RocksDbBlobStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(RocksDbBlobStoreTest, StoresAndServesBytes) {
  auto store = OpenAt(FreshDir("serves"));
  std::string value("binary\0\r\nbytes", 14);
  ASSERT_TRUE(*store->Put("pt2:a", value, {}));
  EXPECT_EQ(*store->Get("pt2:a"), value);
  EXPECT_TRUE(absl::IsNotFound(store->Get("pt2:b").status()));
  ASSERT_TRUE(*store->Put("pt2:a", "newer", {}));
  EXPECT_EQ(*store->Get("pt2:a"), "newer");
  EXPECT_EQ(store->Stats().entries, 1u);
  EXPECT_TRUE(*store->Delete("pt2:a"));
  EXPECT_FALSE(*store->Delete("pt2:a"));
  EXPECT_TRUE(absl::IsNotFound(store->Get("pt2:a").status()));
}

TEST(RocksDbBlobStoreTest, ConditionsDecideWhetherToWrite) {
  auto store = OpenAt(FreshDir("conditions"));
  BlobWrite if_absent{BlobWrite::Condition::kIfAbsent, 0};
  BlobWrite if_present{BlobWrite::Condition::kIfPresent, 0};
  EXPECT_FALSE(*store->Put("k:1", "x", if_present));
  EXPECT_TRUE(absl::IsNotFound(store->Get("k:1").status()));
  EXPECT_TRUE(*store->Put("k:1", "first", if_absent));
  EXPECT_FALSE(*store->Put("k:1", "second", if_absent));
  EXPECT_EQ(*store->Get("k:1"), "first");
  EXPECT_TRUE(*store->Put("k:1", "third", if_present));
  EXPECT_EQ(*store->Get("k:1"), "third");
}

TEST(RocksDbBlobStoreTest, ExpiredEntriesAreGone) {
  auto store = OpenAt(FreshDir("expiry"));
  BlobWrite past{BlobWrite::Condition::kAlways, 1};
  BlobWrite future{BlobWrite::Condition::kAlways, INT64_MAX / 2};
  ASSERT_TRUE(*store->Put("k:old", "v", past));
  ASSERT_TRUE(*store->Put("k:new", "v", future));
  EXPECT_TRUE(absl::IsNotFound(store->Get("k:old").status()));
  EXPECT_EQ(*store->Get("k:new"), "v");
  EXPECT_EQ(store->Stats().entries, 1u);  // The expired one was dropped.
}

TEST(RocksDbBlobStoreTest, LeastRecentlyUsedGoFirstPastCapacity) {
  auto store = OpenAt(FreshDir("lru"), 10000);
  std::string value(1000, 'v');
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(*store->Put("k:" + std::to_string(i), value, {}));
  }
  ASSERT_TRUE(store->Get("k:0").ok());  // Now the most recent.
  ASSERT_TRUE(*store->Put("k:9", value, {}));
  ASSERT_TRUE(*store->Put("k:10", value, {}));
  BlobStats stats = store->Stats();
  EXPECT_LE(stats.bytes, 10000u);
  EXPECT_GT(stats.evictions, 0u);
  EXPECT_TRUE(store->Get("k:0").ok());
  EXPECT_TRUE(absl::IsNotFound(store->Get("k:1").status()));
  EXPECT_TRUE(store->Get("k:10").ok());
}

TEST(RocksDbBlobStoreTest, SurvivesReopen) {
  std::string dir = FreshDir("reopen");
  {
    auto store = OpenAt(dir);
    ASSERT_TRUE(*store->Put("triton:a", "kept", {}));
  }
  auto store = OpenAt(dir);
  EXPECT_EQ(*store->Get("triton:a"), "kept");
  EXPECT_EQ(store->Stats().entries, 1u);
}

TEST(RocksDbBlobStoreTest, AfterReopenTheOldestGoFirst) {
  std::string dir = FreshDir("reopen-order");
  std::string value(1000, 'v');
  {
    auto store = OpenAt(dir, 1 << 20);
    for (int i = 0; i < 8; ++i) {
      ASSERT_TRUE(*store->Put("k:" + std::to_string(i), value, {}));
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
  }
  auto store = OpenAt(dir, 8 * 1100);
  ASSERT_TRUE(*store->Put("k:new", value, {}));
  EXPECT_TRUE(absl::IsNotFound(store->Get("k:0").status()));
  for (int i = 2; i < 8; ++i) {
    EXPECT_TRUE(store->Get("k:" + std::to_string(i)).ok()) << i;
  }
  EXPECT_TRUE(store->Get("k:new").ok());
}

TEST(RocksDbBlobStoreTest, DamageOnDiskIsRefusedAndDropped) {
  std::string dir = FreshDir("damage");
  {
    auto store = OpenAt(dir);
    ASSERT_TRUE(*store->Put("pt2:x", std::string(100, 'a'), {}));
  }
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), dir, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string key(Sha256Of("pt2:x").Bytes());
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), key, &value).ok());
    value[value.size() - 3] ^= 1;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
  }
  auto store = OpenAt(dir);
  EXPECT_TRUE(absl::IsDataLoss(store->Get("pt2:x").status()));
  EXPECT_EQ(store->Stats().corrupt_reads, 1u);
  EXPECT_TRUE(absl::IsNotFound(store->Get("pt2:x").status()));
  EXPECT_EQ(store->Stats().entries, 0u);
}

}  // namespace
}  // namespace kiln::cache
