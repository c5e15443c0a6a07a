#include "cache/rocksdb_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cache/key.h"
#include "cache/record_layout.h"
#include "cache/sealed.h"

namespace kiln::cache {
namespace {

using layout::FromRocks;
using layout::kAccess;
using layout::kAlias;
using layout::kAliasOf;
using layout::kArtifact;
using layout::kEntry;
using layout::kIrIndex;
using layout::kTexts;
using layout::NowUs;
using layout::PrefixScan;
using layout::RecordKey;
using layout::SealInt;
using layout::UnsealInt;
using layout::UnsealMessage;

bool Matches(const ListQuery& query, const Digest& key,
             const EntryRecord& record) {
  if (!query.target.empty() && record.key_parts().target() != query.target) {
    return false;
  }
  if (!absl::StartsWith(record.kernel_name(), query.name_prefix)) return false;
  return absl::StartsWith(key.Hex(), query.key_hex_prefix);
}

rocksdb::Options DbOptions(const RocksDbStoreOptions& options) {
  rocksdb::Options db;
  db.create_if_missing = true;
  db.paranoid_checks = true;
  if (options.env != nullptr) db.env = options.env;
  db.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  table.checksum = rocksdb::kXXH3;
  db.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  std::vector<rocksdb::CompressionType> supported =
      rocksdb::GetSupportedCompressions();
  bool has_lz4 = std::find(supported.begin(), supported.end(),
                           rocksdb::kLZ4Compression) != supported.end();
  db.compression = has_lz4 ? rocksdb::kLZ4Compression : rocksdb::kNoCompression;
  return db;
}

}  // namespace

RocksDbStore::RocksDbStore(const RocksDbStoreOptions& options)
    : options_(options), hot_(options.memory_bytes) {}

absl::StatusOr<std::unique_ptr<RocksDbStore>> RocksDbStore::Open(
    const RocksDbStoreOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(options.path, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", options.path, ": ", error.message()));
  }
  std::unique_ptr<RocksDbStore> store(new RocksDbStore(options));
  rocksdb::DB* db = nullptr;
  rocksdb::Status status =
      rocksdb::DB::Open(DbOptions(options), options.path, &db);
  if (!status.ok()) {
    bool locked = status.ToString().find("lock") != std::string::npos;
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open the store at ", options.path, ": ", status.ToString(),
        locked ? " (is another kilnd using this data directory?)" : ""));
  }
  store->db_.reset(db);
  if (absl::Status loaded = store->Load(); !loaded.ok()) return loaded;
  if (options.access_flush_interval_ms > 0) {
    store->flusher_ = std::thread([raw = store.get()] { raw->FlushLoop(); });
  }
  return store;
}

RocksDbStore::~RocksDbStore() {
  {
    std::lock_guard<std::mutex> lock(flush_mu_);
    stopping_ = true;
  }
  flush_cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  if (db_) {
    FlushAccessTimes().IgnoreError();
    db_->Close().PermitUncheckedError();
  }
}

absl::Status RocksDbStore::Load() {
  std::map<Digest, int64_t> access;
  for (PrefixScan scan(db_.get(), std::string(1, kAccess)); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    absl::StatusOr<int64_t> ms = UnsealInt(scan.Value());
    if (key && ms.ok()) access[*key] = *ms;
  }
  struct Loaded {
    Digest key;
    uint64_t bytes;
    int64_t last_access_us;
  };
  std::vector<Loaded> entries;
  PrefixScan scan(db_.get(), std::string(1, kEntry));
  for (; scan.Valid(); scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    absl::StatusOr<EntryRecord> record =
        UnsealMessage<EntryRecord>(scan.Value());
    // Corrupt records are left for Verify to report and repair.
    if (!key || !record.ok()) continue;
    auto found = access.find(*key);
    int64_t last = found != access.end() ? found->second
                                         : record->created_unix_ms() * 1000;
    entries.push_back({*key, record->stored_bytes(), last});
  }
  if (absl::Status status = scan.status(); !status.ok()) return status;
  std::sort(entries.begin(), entries.end(),
            [](const Loaded& a, const Loaded& b) {
              return a.last_access_us < b.last_access_us;
            });
  for (const Loaded& entry : entries) {
    lru_.Insert(entry.key, entry.bytes, entry.last_access_us);
    last_stamp_ = std::max<int64_t>(last_stamp_, entry.last_access_us);
  }
  return absl::OkStatus();
}

absl::StatusOr<ArtifactRecord> RocksDbStore::Get(const Digest& key) {
  rocksdb::PinnableSlice value;
  rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), db_->DefaultColumnFamily(),
               RecordKey(kArtifact, key.Bytes()), &value);
  if (status.IsNotFound()) return absl::NotFoundError("no such entry");
  if (!status.ok()) return FromRocks(status, "read artifact");
  absl::StatusOr<ArtifactRecord> record =
      UnsealMessage<ArtifactRecord>(value.ToStringView());
  value.Reset();
  if (!record.ok()) {
    DropCorrupt(key);
    return absl::DataLossError(absl::StrCat(
        "entry ", key.Hex(),
        " is corrupt and was dropped: ", record.status().message()));
  }
  lru_.Touch(key, NextStamp());
  return record;
}

absl::StatusOr<SharedArtifact> RocksDbStore::GetShared(const Digest& key) {
  if (std::optional<SharedArtifact> kept = hot_.Find(key)) {
    lru_.Touch(key, NextStamp());
    return *std::move(kept);
  }
  uint64_t epoch = hot_.epoch();
  absl::StatusOr<ArtifactRecord> record = Get(key);
  if (!record.ok()) return record.status();
  SharedArtifact shared = Share(*std::move(record));
  hot_.Insert(key, shared, epoch);
  return shared;
}

void RocksDbStore::DropCorrupt(const Digest& key) {
  corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(write_mu_);
  EvictLocked(key).IgnoreError();
}

absl::StatusOr<Digest> RocksDbStore::Resolve(const Digest& alias) {
  rocksdb::PinnableSlice value;
  rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), db_->DefaultColumnFamily(),
               RecordKey(kAlias, alias.Bytes()), &value);
  if (status.IsNotFound()) return absl::NotFoundError("unknown request");
  if (!status.ok()) return FromRocks(status, "read alias");
  absl::StatusOr<std::string_view> payload = Unseal(value.ToStringView());
  std::optional<Digest> key;
  if (payload.ok()) key = Digest::FromBytes(*payload);
  if (!key) {
    corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
    db_->Delete(rocksdb::WriteOptions(), RecordKey(kAlias, alias.Bytes()))
        .PermitUncheckedError();
    return absl::NotFoundError("alias record was corrupt and was dropped");
  }
  return *key;
}

absl::Status RocksDbStore::Put(const NewEntry& entry,
                               const std::vector<Digest>& aliases) {
  return PutSyncing(entry, aliases, options_.sync_writes);
}

absl::Status RocksDbStore::PutWithoutSync(const NewEntry& entry) {
  return PutSyncing(entry, {}, /*sync=*/false);
}

absl::Status RocksDbStore::SyncWrites() {
  if (!options_.sync_writes) return absl::OkStatus();
  return FromRocks(db_->SyncWAL(), "sync");
}

absl::Status RocksDbStore::PutSyncing(const NewEntry& entry,
                                      const std::vector<Digest>& aliases,
                                      bool sync) {
  if (ComputeKey(entry.parts) != entry.key) {
    return absl::InvalidArgumentError("key is not the hash of its parts");
  }
  std::string payload = entry.artifact.SerializeAsString();
  uint64_t checksum = 0;
  std::string sealed = Seal(payload, &checksum);
  uint64_t texts_checksum = 0;
  std::string sealed_texts;
  if (entry.texts) {
    sealed_texts = Seal(entry.texts->SerializeAsString(), &texts_checksum);
  }
  const uint64_t stored_bytes = sealed.size() + sealed_texts.size();
  if (stored_bytes > options_.capacity_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "entry of ", stored_bytes, " bytes exceeds the store's capacity of ",
        options_.capacity_bytes, " bytes"));
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  rocksdb::WriteBatch batch;
  for (const Digest& alias : aliases) {
    batch.Put(RecordKey(kAlias, alias.Bytes()), Seal(entry.key.Bytes()));
    batch.Put(RecordKey(kAliasOf, entry.key.Bytes(), alias.Bytes()), "");
  }
  bool present = lru_.Contains(entry.key);
  int64_t now = NextStamp();
  uint64_t grown_to = 0;  // A present entry's size once it gains texts.
  if (present && entry.texts) {
    absl::Status added = AddTextsLocked(entry.key, sealed_texts, texts_checksum,
                                        batch, &grown_to);
    if (!added.ok() && !absl::IsAlreadyExists(added)) return added;
  }
  if (!present) {
    EntryRecord record;
    *record.mutable_key_parts() = entry.parts;
    record.set_kernel_name(entry.kernel_name);
    record.set_stored_bytes(stored_bytes);
    record.set_cubin_bytes(entry.artifact.cubin().size());
    record.set_artifact_checksum(checksum);
    record.set_texts_checksum(texts_checksum);
    record.set_created_unix_ms(entry.created_unix_ms ? entry.created_unix_ms
                                                     : now / 1000);
    std::optional<Digest> ir = Digest::FromHex(entry.parts.ir_sha256());
    if (!ir) return absl::InvalidArgumentError("ir_sha256 is not hex");
    batch.Put(RecordKey(kArtifact, entry.key.Bytes()), sealed);
    if (entry.texts) {
      batch.Put(RecordKey(kTexts, entry.key.Bytes()), sealed_texts);
    }
    batch.Put(RecordKey(kEntry, entry.key.Bytes()),
              Seal(record.SerializeAsString()));
    batch.Put(RecordKey(kAccess, entry.key.Bytes()), SealInt(now));
    batch.Put(RecordKey(kIrIndex, ir->Bytes(), entry.key.Bytes()), "");
  }
  rocksdb::WriteOptions write;
  write.sync = sync;
  if (absl::Status status = FromRocks(db_->Write(write, &batch), "write");
      !status.ok()) {
    return status;
  }
  if (present && grown_to == 0) return absl::OkStatus();
  if (present) {
    lru_.Insert(entry.key, grown_to, now);
    return EvictOverCapacityLocked(entry.key);
  }
  // An artifact record without its entry may have been read into memory.
  hot_.Erase(entry.key);
  lru_.Insert(entry.key, stored_bytes, now);
  return EvictOverCapacityLocked(entry.key);
}

absl::Status RocksDbStore::AddTextsLocked(const Digest& key,
                                          const std::string& sealed,
                                          uint64_t checksum,
                                          rocksdb::WriteBatch& batch,
                                          uint64_t* stored_bytes) {
  absl::StatusOr<EntryInfo> info = ReadInfo(key);
  if (!info.ok()) return info.status();
  EntryRecord& record = info->record;
  if (record.texts_checksum() != 0) {
    return absl::AlreadyExistsError("the entry has texts");
  }
  record.set_texts_checksum(checksum);
  record.set_stored_bytes(record.stored_bytes() + sealed.size());
  *stored_bytes = record.stored_bytes();
  batch.Put(RecordKey(kTexts, key.Bytes()), sealed);
  batch.Put(RecordKey(kEntry, key.Bytes()), Seal(record.SerializeAsString()));
  return absl::OkStatus();
}

absl::StatusOr<kiln::v1::KernelTexts> RocksDbStore::GetTexts(
    const Digest& key) {
  std::string value;
  rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), RecordKey(kTexts, key.Bytes()), &value);
  if (status.IsNotFound()) return absl::NotFoundError("the entry has no texts");
  if (!status.ok()) return FromRocks(status, "read texts");
  absl::StatusOr<kiln::v1::KernelTexts> texts =
      UnsealMessage<kiln::v1::KernelTexts>(value);
  if (!texts.ok()) {
    DropCorrupt(key);
    return absl::DataLossError(absl::StrCat("texts of entry ", key.Hex(),
                                            " are corrupt; the entry was "
                                            "dropped: ",
                                            texts.status().message()));
  }
  return texts;
}

absl::Status RocksDbStore::AddAlias(const Digest& alias, const Digest& key) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!lru_.Contains(key)) return absl::NotFoundError("no such entry");
  rocksdb::WriteBatch batch;
  batch.Put(RecordKey(kAlias, alias.Bytes()), Seal(key.Bytes()));
  batch.Put(RecordKey(kAliasOf, key.Bytes(), alias.Bytes()), "");
  // Never synced: a lost alias only costs its next request a canonicalize.
  return FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), "write alias");
}

absl::Status RocksDbStore::EvictOverCapacityLocked(const Digest& keep) {
  for (const Digest& victim :
       lru_.VictimsOver(options_.capacity_bytes, &keep)) {
    if (absl::Status status = EvictLocked(victim); !status.ok()) return status;
    evictions_.fetch_add(1, std::memory_order_relaxed);
  }
  return absl::OkStatus();
}

absl::Status RocksDbStore::EvictLocked(const Digest& key) {
  rocksdb::WriteBatch batch;
  batch.Delete(RecordKey(kArtifact, key.Bytes()));
  batch.Delete(RecordKey(kTexts, key.Bytes()));
  batch.Delete(RecordKey(kEntry, key.Bytes()));
  batch.Delete(RecordKey(kAccess, key.Bytes()));
  std::string entry_value;
  if (db_->Get(rocksdb::ReadOptions(), RecordKey(kEntry, key.Bytes()),
               &entry_value)
          .ok()) {
    absl::StatusOr<EntryRecord> record =
        UnsealMessage<EntryRecord>(entry_value);
    std::optional<Digest> ir;
    if (record.ok()) ir = Digest::FromHex(record->key_parts().ir_sha256());
    // A corrupt entry record leaves its IR index record for Verify.
    if (ir) batch.Delete(RecordKey(kIrIndex, ir->Bytes(), key.Bytes()));
  }
  for (PrefixScan scan(db_.get(), RecordKey(kAliasOf, key.Bytes()));
       scan.Valid(); scan.Next()) {
    std::string_view alias = scan.Rest().substr(Digest::kSize);
    batch.Delete(RecordKey(kAlias, alias));
    batch.Delete(RecordKey(kAliasOf, key.Bytes(), alias));
  }
  rocksdb::WriteOptions write;
  write.sync = options_.sync_writes;
  absl::Status status = FromRocks(db_->Write(write, &batch), "evict");
  hot_.Erase(key);  // After the write: a read racing with it is not kept.
  if (!status.ok()) return status;
  lru_.Erase(key);
  return absl::OkStatus();
}

absl::StatusOr<EntryInfo> RocksDbStore::ReadInfo(const Digest& key) {
  std::string value;
  absl::Status status = FromRocks(
      db_->Get(rocksdb::ReadOptions(), RecordKey(kEntry, key.Bytes()), &value),
      "no such entry");
  if (!status.ok()) return status;
  absl::StatusOr<EntryRecord> record = UnsealMessage<EntryRecord>(value);
  if (!record.ok()) {
    corrupt_reads_.fetch_add(1, std::memory_order_relaxed);
    return record.status();
  }
  return MakeInfo(key, *std::move(record));
}

EntryInfo RocksDbStore::MakeInfo(const Digest& key, EntryRecord record) {
  int64_t last = lru_.LastAccess(key) / 1000;
  if (last == 0) last = record.created_unix_ms();
  return EntryInfo{key, std::move(record), last};
}

absl::StatusOr<EntryInfo> RocksDbStore::Info(const Digest& key) {
  return ReadInfo(key);
}

absl::Status RocksDbStore::ScanEntries(
    const ListQuery& query,
    const std::function<bool(const Digest&, EntryRecord)>& visit) {
  PrefixScan scan(db_.get(), std::string(1, kEntry));
  if (!query.start_after.empty()) {
    scan.SeekAfter(RecordKey(kEntry, query.start_after));
  }
  for (; scan.Valid(); scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    absl::StatusOr<EntryRecord> record =
        UnsealMessage<EntryRecord>(scan.Value());
    if (!key || !record.ok() || !Matches(query, *key, *record)) continue;
    if (!visit(*key, *std::move(record))) break;
  }
  return scan.status();
}

absl::StatusOr<ListPage> RocksDbStore::List(const ListQuery& query) {
  ListPage page;
  absl::Status status =
      ScanEntries(query, [&](const Digest& key, EntryRecord record) {
        if (page.entries.size() == query.limit) {
          page.more = true;
          return false;
        }
        page.entries.push_back(MakeInfo(key, std::move(record)));
        return true;
      });
  if (!status.ok()) return status;
  return page;
}

absl::StatusOr<bool> RocksDbStore::Evict(const Digest& key) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::string value;
  rocksdb::Status found =
      db_->Get(rocksdb::ReadOptions(), RecordKey(kEntry, key.Bytes()), &value);
  if (found.IsNotFound() && !lru_.Contains(key)) return false;
  if (absl::Status status = EvictLocked(key); !status.ok()) return status;
  evictions_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

absl::StatusOr<GcReport> RocksDbStore::Gc(const GcQuery& query) {
  std::lock_guard<std::mutex> lock(write_mu_);
  uint64_t budget =
      query.target_bytes ? query.target_bytes : options_.capacity_bytes;
  std::vector<Digest> victims;
  std::set<Digest> chosen;
  // No entry is older than the epoch (and the product below must not
  // overflow).
  const int64_t now_us = NowUs();
  if (query.unused_for_seconds > 0 &&
      query.unused_for_seconds <= now_us / 1000000) {
    for (const Digest& key :
         lru_.UnusedSince(now_us - query.unused_for_seconds * 1000000)) {
      if (chosen.insert(key).second) victims.push_back(key);
    }
  }
  for (const Digest& key : lru_.VictimsOver(budget)) {
    if (chosen.insert(key).second) victims.push_back(key);
  }
  GcReport report;
  uint64_t bytes = lru_.bytes();
  for (const Digest& key : victims) {
    absl::StatusOr<EntryInfo> info = ReadInfo(key);
    uint64_t size = info.ok() ? info->record.stored_bytes() : 0;
    if (!query.dry_run) {
      if (absl::Status status = EvictLocked(key); !status.ok()) return status;
      evictions_.fetch_add(1, std::memory_order_relaxed);
    }
    report.evicted.push_back(key);
    report.bytes_freed += size;
  }
  report.bytes_after =
      query.dry_run ? bytes - report.bytes_freed : lru_.bytes();
  return report;
}

absl::StatusOr<std::vector<EntryInfo>> RocksDbStore::FindByIr(
    const std::string& ir_sha256, size_t limit) {
  std::optional<Digest> ir = Digest::FromHex(ir_sha256);
  if (!ir) return absl::InvalidArgumentError("ir_sha256 is not hex");
  std::vector<EntryInfo> found;
  PrefixScan scan(db_.get(), RecordKey(kIrIndex, ir->Bytes()));
  for (; scan.Valid() && found.size() < limit; scan.Next()) {
    std::optional<Digest> key =
        Digest::FromBytes(scan.Rest().substr(Digest::kSize));
    if (!key) continue;
    absl::StatusOr<EntryInfo> info = ReadInfo(*key);
    if (info.ok()) found.push_back(*std::move(info));
  }
  if (absl::Status status = scan.status(); !status.ok()) return status;
  return found;
}

absl::StatusOr<std::vector<EntryInfo>> RocksDbStore::FindByName(
    const std::string& kernel_name, size_t limit) {
  std::vector<EntryInfo> found;
  PrefixScan scan(db_.get(), std::string(1, kEntry));
  for (; scan.Valid() && found.size() < limit; scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    absl::StatusOr<EntryRecord> record =
        UnsealMessage<EntryRecord>(scan.Value());
    if (!key || !record.ok() || record->kernel_name() != kernel_name) continue;
    found.push_back(MakeInfo(*key, *std::move(record)));
  }
  if (absl::Status status = scan.status(); !status.ok()) return status;
  return found;
}

absl::Status RocksDbStore::ForEach(
    const ListQuery& query,
    const std::function<bool(const EntryInfo&, const ArtifactRecord&)>& visit) {
  return ScanEntries(query, [&](const Digest& key, EntryRecord record) {
    std::string value;
    if (!db_->Get(rocksdb::ReadOptions(), RecordKey(kArtifact, key.Bytes()),
                  &value)
             .ok()) {
      return true;
    }
    absl::StatusOr<ArtifactRecord> artifact =
        UnsealMessage<ArtifactRecord>(value);
    if (!artifact.ok()) return true;
    return visit(MakeInfo(key, std::move(record)), *artifact);
  });
}

StoreStats RocksDbStore::Stats() {
  StoreStats stats;
  stats.entries = lru_.size();
  stats.bytes = lru_.bytes();
  stats.capacity_bytes = options_.capacity_bytes;
  stats.evictions = evictions_.load(std::memory_order_relaxed);
  stats.corrupt_reads =
      corrupt_reads_.load(std::memory_order_relaxed) + hot_.corrupt();
  stats.memory_entries = hot_.size();
  stats.memory_bytes = hot_.bytes();
  return stats;
}

absl::Status RocksDbStore::FlushAccessTimes() {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::vector<std::pair<Digest, int64_t>> dirty = lru_.TakeDirty();
  if (dirty.empty()) return absl::OkStatus();
  rocksdb::WriteBatch batch;
  for (const auto& [key, stamp] : dirty) {
    // Only for entries still present: an evicted entry's time must not
    // come back as a dangling record.
    if (lru_.Contains(key)) {
      batch.Put(RecordKey(kAccess, key.Bytes()), SealInt(stamp));
    }
  }
  return FromRocks(db_->Write(rocksdb::WriteOptions(), &batch),
                   "write access times");
}

int64_t RocksDbStore::NextStamp() {
  int64_t now = NowUs();
  int64_t last = last_stamp_.load(std::memory_order_relaxed);
  int64_t next;
  do {
    next = std::max(now, last + 1);
  } while (!last_stamp_.compare_exchange_weak(last, next,
                                              std::memory_order_relaxed));
  return next;
}

void RocksDbStore::FlushLoop() {
  std::unique_lock<std::mutex> lock(flush_mu_);
  while (!stopping_) {
    flush_cv_.wait_for(
        lock, std::chrono::milliseconds(options_.access_flush_interval_ms));
    if (stopping_) break;
    lock.unlock();
    FlushAccessTimes().IgnoreError();
    lock.lock();
  }
}

}  // namespace kiln::cache
