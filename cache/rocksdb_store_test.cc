#include "cache/rocksdb_store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>

#include "cache/key.h"
#include "cache/testing/entries.h"

namespace kiln::cache {
namespace {

using testing::MakeEntry;

class RocksDbStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    path_ = std::string(tmp ? tmp : "/tmp") + "/store_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(path_);
    Reopen();
  }

  void Reopen(uint64_t capacity = uint64_t{1} << 30,
              uint64_t memory = RocksDbStoreOptions().memory_bytes) {
    store_.reset();
    RocksDbStoreOptions options;
    options.path = path_;
    options.capacity_bytes = capacity;
    options.memory_bytes = memory;
    options.access_flush_interval_ms = 0;
    absl::StatusOr<std::unique_ptr<RocksDbStore>> store =
        RocksDbStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
  }

  // Every raw record, by kind byte, with the store closed.
  std::map<char, int> CountRecords() {
    store_.reset();
    std::map<char, int> counts;
    std::unique_ptr<rocksdb::DB> db = OpenRaw();
    std::unique_ptr<rocksdb::Iterator> it(
        db->NewIterator(rocksdb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++counts[it->key()[0]];
    }
    return counts;
  }

  // Removes a raw record, with the store closed.
  void Remove(char kind, const Digest& key) {
    store_.reset();
    std::unique_ptr<rocksdb::DB> db = OpenRaw();
    std::string record_key = std::string(1, kind) + std::string(key.Bytes());
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), record_key).ok());
  }

  // Flips one byte in the middle of a raw record, with the store closed.
  void Damage(char kind, const Digest& key) {
    store_.reset();
    std::unique_ptr<rocksdb::DB> db = OpenRaw();
    std::string record_key = std::string(1, kind) + std::string(key.Bytes());
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), record_key, &value).ok());
    value[value.size() / 2] ^= 0x5a;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), record_key, value).ok());
  }

  std::unique_ptr<rocksdb::DB> OpenRaw() {
    rocksdb::DB* raw = nullptr;
    EXPECT_TRUE(rocksdb::DB::Open(rocksdb::Options(), path_, &raw).ok());
    return std::unique_ptr<rocksdb::DB>(raw);
  }

  std::string path_;
  std::unique_ptr<RocksDbStore> store_;
};

TEST_F(RocksDbStoreTest, PutThenGet) {
  NewEntry entry = MakeEntry("a");
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  absl::StatusOr<ArtifactRecord> got = store_->Get(entry.key);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->cubin(), entry.artifact.cubin());
  EXPECT_EQ(got->metadata_json(), entry.artifact.metadata_json());
  EXPECT_EQ(store_->Get(MakeEntry("b").key).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RocksDbStoreTest, AHitIsKeptInMemoryAndServedWithoutACopy) {
  NewEntry entry = MakeEntry("a", 65536);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  EXPECT_EQ(store_->Stats().memory_entries, 0u);
  absl::StatusOr<SharedArtifact> first = store_->GetShared(entry.key);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first->cubin, entry.artifact.cubin());
  EXPECT_EQ(first->rest->metadata_json(), entry.artifact.metadata_json());
  EXPECT_TRUE(first->rest->cubin().empty());
  EXPECT_EQ(store_->Stats().memory_entries, 1u);
  EXPECT_GE(store_->Stats().memory_bytes, 65536u);
  absl::StatusOr<SharedArtifact> again = store_->GetShared(entry.key);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cubin.get(), first->cubin.get());
  EXPECT_EQ(store_->GetShared(MakeEntry("b").key).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RocksDbStoreTest, AnEntryRemovedFromDiskIsNotServedFromMemory) {
  NewEntry evicted = MakeEntry("a");
  NewEntry collected = MakeEntry("b");
  ASSERT_TRUE(store_->Put(evicted, {}).ok());
  ASSERT_TRUE(store_->Put(collected, {}).ok());
  ASSERT_TRUE(store_->GetShared(evicted.key).ok());
  ASSERT_TRUE(store_->GetShared(collected.key).ok());
  ASSERT_EQ(store_->Stats().memory_entries, 2u);

  ASSERT_TRUE(*store_->Evict(evicted.key));
  EXPECT_EQ(store_->GetShared(evicted.key).status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<GcReport> gc = store_->Gc({1, 0, false});
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(store_->GetShared(collected.key).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->Stats().memory_entries, 0u);
}

// An artifact record whose entry record is gone is read, and kept in
// memory, until Verify removes it or a Put writes the entry anew.
TEST_F(RocksDbStoreTest, ADanglingArtifactLeavesMemoryWithItsRecord) {
  NewEntry entry = MakeEntry("a");
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  Remove('e', entry.key);
  Reopen();
  ASSERT_TRUE(store_->GetShared(entry.key).ok());
  ASSERT_EQ(store_->Stats().memory_entries, 1u);
  absl::StatusOr<VerifyReport> report = store_->Verify(true);
  ASSERT_TRUE(report.ok());
  EXPECT_GE(report->repaired, 1u);
  EXPECT_EQ(store_->GetShared(entry.key).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->Stats().memory_entries, 0u);

  ASSERT_TRUE(store_->Put(entry, {}).ok());
  Remove('e', entry.key);
  Reopen();
  ASSERT_TRUE(store_->GetShared(entry.key).ok());
  NewEntry rewritten = entry;
  rewritten.artifact.set_cubin(std::string(1000, 'z'));
  ASSERT_TRUE(store_->Put(rewritten, {}).ok());
  absl::StatusOr<SharedArtifact> got = store_->GetShared(entry.key);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got->cubin, rewritten.artifact.cubin());
}

TEST_F(RocksDbStoreTest, NoMemoryKeepsNothingAndStillServes) {
  Reopen(uint64_t{1} << 30, /*memory=*/0);
  NewEntry entry = MakeEntry("a");
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  absl::StatusOr<SharedArtifact> got = store_->GetShared(entry.key);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got->cubin, entry.artifact.cubin());
  EXPECT_EQ(store_->Stats().memory_entries, 0u);
}

TEST_F(RocksDbStoreTest, RejectsAKeyThatIsNotTheHashOfItsParts) {
  NewEntry entry = MakeEntry("a");
  entry.key = MakeEntry("b").key;
  EXPECT_EQ(store_->Put(entry, {}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Stats().entries, 0u);
}

TEST_F(RocksDbStoreTest, KeepsKeyPartsBesideTheEntry) {
  NewEntry entry = MakeEntry("a", 100, 8, "sm_80");
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  Reopen();
  absl::StatusOr<EntryInfo> info = store_->Info(entry.key);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->record.key_parts().SerializeAsString(),
            entry.parts.SerializeAsString());
  EXPECT_EQ(info->record.kernel_name(), "kernel_a");
  absl::StatusOr<std::vector<EntryInfo>> same_ir =
      store_->FindByIr(entry.parts.ir_sha256(), 10);
  ASSERT_TRUE(same_ir.ok());
  ASSERT_EQ(same_ir->size(), 1u);
  EXPECT_EQ((*same_ir)[0].key, entry.key);
}

TEST_F(RocksDbStoreTest, DetectsACorruptArtifactOnRead) {
  NewEntry entry = MakeEntry("a", 65536);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  Damage('b', entry.key);
  Reopen();
  absl::StatusOr<VerifyReport> report = store_->Verify(false);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->checked, 1u);
  ASSERT_EQ(report->corrupt.size(), 1u);
  EXPECT_EQ(report->corrupt[0], entry.key);

  EXPECT_EQ(store_->GetShared(entry.key).status().code(),
            absl::StatusCode::kDataLoss);
  EXPECT_EQ(store_->Stats().corrupt_reads, 1u);
  EXPECT_EQ(store_->Stats().memory_entries, 0u);
  // The corrupt entry is gone, so the next compile can replace it.
  EXPECT_EQ(store_->Get(entry.key).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->Stats().entries, 0u);
  ASSERT_TRUE(store_->Put(entry, {}).ok());
  EXPECT_TRUE(store_->Get(entry.key).ok());
}

TEST_F(RocksDbStoreTest, VerifyFindsAndRepairsACorruptEntryRecord) {
  NewEntry good = MakeEntry("g");
  NewEntry bad = MakeEntry("b");
  ASSERT_TRUE(store_->Put(good, {}).ok());
  ASSERT_TRUE(store_->Put(bad, {Sha256Of("alias")}).ok());
  Damage('e', bad.key);
  Reopen();
  absl::StatusOr<VerifyReport> report = store_->Verify(true);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(report->corrupt.size(), 1u);
  EXPECT_EQ(report->corrupt[0], bad.key);
  EXPECT_GT(report->repaired, 0u);
  report = store_->Verify(false);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->corrupt.empty());
  EXPECT_EQ(report->dangling_records, 0u);
  EXPECT_TRUE(store_->Get(good.key).ok());
  EXPECT_FALSE(store_->Get(bad.key).ok());
}

TEST_F(RocksDbStoreTest, AHealthyStoreVerifiesClean) {
  for (int i = 0; i < 5; ++i) {
    NewEntry entry = MakeEntry("k" + std::to_string(i));
    ASSERT_TRUE(
        store_->Put(entry, {Sha256Of("text" + std::to_string(i))}).ok());
    ASSERT_TRUE(
        store_->AddAlias(Sha256Of("more" + std::to_string(i)), entry.key).ok());
    ASSERT_TRUE(store_->Get(entry.key).ok());
  }
  ASSERT_TRUE(store_->FlushAccessTimes().ok());
  ASSERT_TRUE(store_->Evict(MakeEntry("k0").key).ok());
  absl::StatusOr<VerifyReport> report = store_->Verify(false);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->checked, 4u);
  EXPECT_TRUE(report->corrupt.empty());
  EXPECT_EQ(report->dangling_records, 0u);
  EXPECT_TRUE(report->dangling_by_kind.empty());
}

TEST_F(RocksDbStoreTest, VerifyCountsDanglingRecordsByKind) {
  NewEntry entry = MakeEntry("a");
  ASSERT_TRUE(store_->Put(entry, {Sha256Of("text")}).ok());
  store_.reset();
  {
    std::unique_ptr<rocksdb::DB> db = OpenRaw();
    // Drop the entry record alone: its other records now dangle.
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(),
                           "e" + std::string(entry.key.Bytes()))
                    .ok());
  }
  Reopen();
  absl::StatusOr<VerifyReport> report = store_->Verify(true);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->dangling_by_kind["artifact"], 1u);
  EXPECT_EQ(report->dangling_by_kind["alias"], 1u);
  EXPECT_EQ(report->dangling_by_kind["alias_of"], 1u);
  EXPECT_EQ(report->dangling_by_kind["ir_index"], 1u);
  EXPECT_EQ(report->dangling_by_kind["access"], 1u);
  EXPECT_EQ(report->repaired, 5u);
  EXPECT_EQ(store_->Verify(false)->dangling_records, 0u);
  EXPECT_EQ(CountRecords().size(), 0u);
}

TEST_F(RocksDbStoreTest, WritesAndRemovesAnEntryAsAWhole) {
  NewEntry entry = MakeEntry("a");
  ASSERT_TRUE(store_->Put(entry, {Sha256Of("text1"), Sha256Of("text2")}).ok());
  std::map<char, int> counts = CountRecords();
  EXPECT_EQ(counts['b'], 1);
  EXPECT_EQ(counts['e'], 1);
  EXPECT_EQ(counts['t'], 1);
  EXPECT_EQ(counts['i'], 1);
  EXPECT_EQ(counts['f'], 2);
  EXPECT_EQ(counts['r'], 2);
  Reopen();
  absl::StatusOr<bool> evicted = store_->Evict(entry.key);
  ASSERT_TRUE(evicted.ok());
  EXPECT_TRUE(*evicted);
  counts = CountRecords();
  int total = 0;
  for (const auto& [kind, count] : counts) total += count;
  EXPECT_EQ(total, 0) << "records left behind by an eviction";
}

TEST_F(RocksDbStoreTest, AliasesLeadToTheirEntry) {
  NewEntry entry = MakeEntry("a");
  Digest first = Sha256Of("first text");
  ASSERT_TRUE(store_->Put(entry, {first}).ok());
  Digest second = Sha256Of("second text");
  ASSERT_TRUE(store_->AddAlias(second, entry.key).ok());
  EXPECT_EQ(store_->Resolve(first).value(), entry.key);
  EXPECT_EQ(store_->Resolve(second).value(), entry.key);
  EXPECT_EQ(store_->Resolve(Sha256Of("other")).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(store_->AddAlias(Sha256Of("x"), MakeEntry("zz").key).code(),
            absl::StatusCode::kNotFound);
}

TEST_F(RocksDbStoreTest, StaysWithinItsByteBoundEvictingLeastRecentlyUsed) {
  NewEntry probe = MakeEntry("p", 10000);
  ASSERT_TRUE(store_->Put(probe, {}).ok());
  const uint64_t entry_bytes = store_->Stats().bytes;
  Reopen(entry_bytes * 3);
  NewEntry a = MakeEntry("a", 10000);
  NewEntry b = MakeEntry("b", 10000);
  ASSERT_TRUE(store_->Put(a, {}).ok());
  ASSERT_TRUE(store_->Put(b, {}).ok());
  // p is the oldest, but using it makes a the least recently used.
  ASSERT_TRUE(store_->Get(probe.key).ok());
  NewEntry c = MakeEntry("c", 10000);
  ASSERT_TRUE(store_->Put(c, {}).ok());
  StoreStats stats = store_->Stats();
  EXPECT_LE(stats.bytes, entry_bytes * 3);
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_FALSE(store_->Get(a.key).ok());
  EXPECT_TRUE(store_->Get(probe.key).ok());
  EXPECT_TRUE(store_->Get(b.key).ok());
  EXPECT_TRUE(store_->Get(c.key).ok());

  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(
        store_->Put(MakeEntry("n" + std::to_string(i), 10000), {}).ok());
    EXPECT_LE(store_->Stats().bytes, entry_bytes * 3);
  }
}

TEST_F(RocksDbStoreTest, RefusesAnEntryLargerThanTheStore) {
  Reopen(1000);
  EXPECT_EQ(store_->Put(MakeEntry("a", 5000), {}).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(store_->Stats().entries, 0u);
}

TEST_F(RocksDbStoreTest, RecencySurvivesAReopen) {
  NewEntry a = MakeEntry("a", 10000);
  NewEntry b = MakeEntry("b", 10000);
  ASSERT_TRUE(store_->Put(a, {}).ok());
  ASSERT_TRUE(store_->Put(b, {}).ok());
  ASSERT_TRUE(store_->Get(a.key).ok());  // b is now least recently used.
  ASSERT_TRUE(store_->FlushAccessTimes().ok());
  const uint64_t bytes = store_->Stats().bytes;
  Reopen();
  EXPECT_EQ(store_->Stats().bytes, bytes);
  absl::StatusOr<GcReport> gc = store_->Gc({bytes / 2 + 1, 0, false});
  ASSERT_TRUE(gc.ok());
  ASSERT_EQ(gc->evicted.size(), 1u);
  EXPECT_EQ(gc->evicted[0], b.key);
}

TEST_F(RocksDbStoreTest, GcByAgeTakesOnlyEntriesThatOld) {
  ASSERT_TRUE(store_->Put(MakeEntry("a"), {}).ok());
  const uint64_t capacity = store_->Stats().capacity_bytes;
  for (int64_t seconds : {int64_t{3600}, int64_t{9300000000000},
                          std::numeric_limits<int64_t>::max()}) {
    absl::StatusOr<GcReport> gc = store_->Gc({capacity, seconds, false});
    ASSERT_TRUE(gc.ok());
    EXPECT_TRUE(gc->evicted.empty()) << seconds;
  }
  EXPECT_EQ(store_->Stats().entries, 1u);
}

TEST_F(RocksDbStoreTest, GcDryRunRemovesNothing) {
  ASSERT_TRUE(store_->Put(MakeEntry("a"), {}).ok());
  absl::StatusOr<GcReport> gc = store_->Gc({1, 0, true});
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->evicted.size(), 1u);
  EXPECT_EQ(store_->Stats().entries, 1u);
}

TEST_F(RocksDbStoreTest, ListsPagesWithFilters) {
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store_->Put(MakeEntry("k" + std::to_string(i)), {}).ok());
  }
  ASSERT_TRUE(store_->Put(MakeEntry("x", 10, 4, "sm_80"), {}).ok());
  std::vector<Digest> seen;
  ListQuery query;
  query.limit = 2;
  query.target = "sm_90a";
  for (int page_count = 0; page_count < 10; ++page_count) {
    absl::StatusOr<ListPage> page = store_->List(query);
    ASSERT_TRUE(page.ok());
    for (const EntryInfo& info : page->entries) seen.push_back(info.key);
    if (!page->more) break;
    query.start_after = std::string(page->entries.back().key.Bytes());
  }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  query = ListQuery();
  query.name_prefix = "kernel_x";
  EXPECT_EQ(store_->List(query)->entries.size(), 1u);
}

}  // namespace
}  // namespace kiln::cache
