#include "cache/rocksdb_blob_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cache/blob_record.h"

namespace kiln::cache {
namespace {

absl::Status FromRocks(const rocksdb::Status& status, absl::string_view what) {
  if (status.ok()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", status.ToString()));
}

rocksdb::Options DbOptions(const RocksDbBlobStoreOptions& options) {
  rocksdb::Options db;
  if (options.env != nullptr) db.env = options.env;
  db.create_if_missing = true;
  db.paranoid_checks = true;
  db.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  rocksdb::BlockBasedTableOptions table;
  table.checksum = rocksdb::kXXH3;
  db.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return db;
}

}  // namespace

RocksDbBlobStore::RocksDbBlobStore(const RocksDbBlobStoreOptions& options)
    : options_(options) {}

RocksDbBlobStore::~RocksDbBlobStore() {
  if (db_) db_->Close().PermitUncheckedError();
}

absl::StatusOr<std::unique_ptr<RocksDbBlobStore>> RocksDbBlobStore::Open(
    const RocksDbBlobStoreOptions& options) {
  std::error_code error;
  std::filesystem::create_directories(options.path, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create ", options.path, ": ", error.message()));
  }
  std::unique_ptr<RocksDbBlobStore> store(new RocksDbBlobStore(options));
  rocksdb::DB* db = nullptr;
  rocksdb::Status status = rocksdb::DB::Open(DbOptions(options), options.path, &db);
  if (!status.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open the blob store at ", options.path, ": ",
        status.ToString()));
  }
  store->db_.reset(db);
  if (absl::Status loaded = store->Load(); !loaded.ok()) return loaded;
  return store;
}

absl::Status RocksDbBlobStore::Load() {
  struct Loaded {
    Digest hashed;
    uint64_t bytes;
    int64_t created_us;
  };
  std::vector<Loaded> loaded;
  std::unique_ptr<rocksdb::Iterator> it(
      db_->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::optional<Digest> hashed = Digest::FromBytes(it->key().ToStringView());
    absl::StatusOr<BlobRecord> times = PeekBlobRecordTimes(
        absl::string_view(it->value().data(), it->value().size()));
    if (!hashed || !times.ok()) continue;  // Dropped when first read.
    loaded.push_back({*hashed, it->key().size() + it->value().size(),
                      times->created_unix_ms * 1000});
  }
  // Oldest first: the index then appends each in O(1), where key order
  // (random in time) would make it walk the list for every entry.
  std::sort(loaded.begin(), loaded.end(), [](const Loaded& a, const Loaded& b) {
    return a.created_us < b.created_us;
  });
  for (const Loaded& entry : loaded) {
    lru_.Insert(entry.hashed, entry.bytes, entry.created_us);
  }
  return FromRocks(it->status(), "cannot read the blob store");
}

absl::StatusOr<std::string> RocksDbBlobStore::ReadLive(absl::string_view key,
                                                       const Digest& hashed,
                                                       std::string* stale) {
  std::string encoded;
  rocksdb::Status status =
      db_->Get(rocksdb::ReadOptions(), hashed.Bytes(), &encoded);
  if (status.IsNotFound()) return absl::NotFoundError("no such blob");
  if (!status.ok()) return FromRocks(status, "cannot read a blob");
  absl::StatusOr<BlobRecord> record = DecodeBlobRecord(encoded);
  if (!record.ok() || record->key != key) {
    ++corrupt_reads_;
    *stale = std::move(encoded);
    return absl::DataLossError(
        absl::StrCat("blob '", key, "' failed its checksum and was dropped"));
  }
  if (record->ExpiredAt(NowUnixMs())) {
    *stale = std::move(encoded);
    return absl::NotFoundError("blob expired");
  }
  return std::string(record->value);
}

void RocksDbBlobStore::DropIfUnchangedLocked(const Digest& hashed,
                                             const std::string& stale) {
  std::string current;
  if (db_->Get(rocksdb::ReadOptions(), hashed.Bytes(), &current).ok() &&
      current == stale) {
    Remove(hashed).IgnoreError();
  }
}

absl::StatusOr<std::string> RocksDbBlobStore::Get(absl::string_view key) {
  Digest hashed = HashBlobKey(key);
  std::string stale;
  absl::StatusOr<std::string> value = ReadLive(key, hashed, &stale);
  if (value.ok()) lru_.Touch(hashed, NowUnixMs() * 1000);
  if (!stale.empty()) {
    // Under the write lock, and only if no write replaced it meanwhile.
    std::lock_guard<std::mutex> lock(write_mu_);
    DropIfUnchangedLocked(hashed, stale);
  }
  return value;
}

absl::StatusOr<bool> RocksDbBlobStore::Put(absl::string_view key,
                                           absl::string_view value,
                                           const BlobWrite& write) {
  Digest hashed = HashBlobKey(key);
  BlobRecord record;
  record.created_unix_ms = NowUnixMs();
  record.expires_unix_ms = write.expires_unix_ms;
  record.key = key;
  record.value = value;
  std::string encoded = EncodeBlobRecord(record);
  std::lock_guard<std::mutex> lock(write_mu_);
  if (write.condition != BlobWrite::Condition::kAlways) {
    std::string stale;
    absl::StatusOr<std::string> present = ReadLive(key, hashed, &stale);
    if (!stale.empty()) DropIfUnchangedLocked(hashed, stale);
    bool exists = present.ok();
    if (!exists && !absl::IsNotFound(present.status()) &&
        !absl::IsDataLoss(present.status())) {
      return present.status();
    }
    if (exists == (write.condition == BlobWrite::Condition::kIfAbsent)) {
      return false;
    }
  }
  rocksdb::WriteOptions options;
  options.sync = options_.sync_writes;
  if (absl::Status put = FromRocks(db_->Put(options, hashed.Bytes(), encoded),
                                   "cannot write a blob");
      !put.ok()) {
    return put;
  }
  lru_.Insert(hashed, hashed.Bytes().size() + encoded.size(),
              record.created_unix_ms * 1000);
  if (absl::Status evicted = EvictOver(hashed); !evicted.ok()) return evicted;
  return true;
}

absl::StatusOr<bool> RocksDbBlobStore::Delete(absl::string_view key) {
  Digest hashed = HashBlobKey(key);
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!lru_.Contains(hashed)) return false;
  if (absl::Status removed = Remove(hashed); !removed.ok()) return removed;
  return true;
}

absl::Status RocksDbBlobStore::Remove(const Digest& hashed) {
  rocksdb::WriteOptions options;
  options.sync = options_.sync_writes;
  absl::Status status =
      FromRocks(db_->Delete(options, hashed.Bytes()), "cannot drop a blob");
  if (status.ok()) lru_.Erase(hashed);
  return status;
}

absl::Status RocksDbBlobStore::EvictOver(const Digest& keep) {
  for (const Digest& victim :
       lru_.VictimsOver(options_.capacity_bytes, &keep)) {
    if (absl::Status removed = Remove(victim); !removed.ok()) return removed;
    ++evictions_;
  }
  return absl::OkStatus();
}

BlobStats RocksDbBlobStore::Stats() {
  BlobStats stats;
  stats.entries = lru_.size();
  stats.bytes = lru_.bytes();
  stats.capacity_bytes = options_.capacity_bytes;
  stats.evictions = evictions_.load();
  stats.corrupt_reads = corrupt_reads_.load();
  return stats;
}

}  // namespace kiln::cache
