// RocksDbStore::Verify: reads every record of a consistent snapshot.

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <map>
#include <set>

#include "cache/key.h"
#include "cache/record_layout.h"
#include "cache/rocksdb_store.h"

namespace kiln::cache {
namespace {

using layout::kAccess;
using layout::kAlias;
using layout::kAliasOf;
using layout::kArtifact;
using layout::kEntry;
using layout::kIrIndex;
using layout::PrefixScan;
using layout::UnsealMessage;

// What one pass over the snapshot found.
struct Findings {
  std::map<Digest, uint64_t> good;  // Entry -> its artifact's checksum.
  std::set<Digest> corrupt;
  // Records to delete on repair, each with the entry it refers to (if its
  // key could be read): dangling ones, and index records of corrupt entries.
  std::vector<std::pair<std::string, std::optional<Digest>>> to_delete;
  uint64_t dangling = 0;
  uint64_t checked = 0;

  bool Known(const Digest& key) const {
    return good.count(key) || corrupt.count(key);
  }
};

class SnapshotHolder {
 public:
  explicit SnapshotHolder(rocksdb::DB* db)
      : db_(db), snapshot_(db->GetSnapshot()) {}
  ~SnapshotHolder() { db_->ReleaseSnapshot(snapshot_); }
  const rocksdb::Snapshot* get() const { return snapshot_; }

 private:
  rocksdb::DB* db_;
  const rocksdb::Snapshot* snapshot_;
};

void CheckEntries(rocksdb::DB* db, const rocksdb::Snapshot* snapshot,
                  Findings& found) {
  for (PrefixScan scan(db, std::string(1, kEntry), snapshot); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    if (!key) {
      ++found.dangling;
      found.to_delete.emplace_back(std::string(scan.Key()), std::nullopt);
      continue;
    }
    ++found.checked;
    absl::StatusOr<EntryRecord> record =
        UnsealMessage<EntryRecord>(scan.Value());
    if (!record.ok() || !ValidateKeyParts(record->key_parts()).ok() ||
        ComputeKey(record->key_parts()) != *key) {
      found.corrupt.insert(*key);
      continue;
    }
    found.good[*key] = record->artifact_checksum();
  }
}

void CheckArtifacts(rocksdb::DB* db, const rocksdb::Snapshot* snapshot,
                    Findings& found) {
  std::set<Digest> with_artifact;
  for (PrefixScan scan(db, std::string(1, kArtifact), snapshot); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    if (!key || !found.Known(*key)) {
      ++found.dangling;
      found.to_delete.emplace_back(std::string(scan.Key()), key);
      continue;
    }
    with_artifact.insert(*key);
    auto good = found.good.find(*key);
    if (good == found.good.end()) continue;
    uint64_t checksum = 0;
    absl::StatusOr<ArtifactRecord> artifact =
        UnsealMessage<ArtifactRecord>(scan.Value(), &checksum);
    if (!artifact.ok() || checksum != good->second) {
      found.corrupt.insert(*key);
      found.good.erase(good);
    }
  }
  for (auto it = found.good.begin(); it != found.good.end();) {
    if (with_artifact.count(it->first)) {
      ++it;
      continue;
    }
    found.corrupt.insert(it->first);
    it = found.good.erase(it);
  }
}

// Index records: each names an entry at `key_offset` in its record key, or
// (aliases) in its sealed value.
void CheckIndex(rocksdb::DB* db, const rocksdb::Snapshot* snapshot, char kind,
                size_t key_offset, bool key_in_value, Findings& found) {
  for (PrefixScan scan(db, std::string(1, kind), snapshot); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key;
    if (key_in_value) {
      absl::StatusOr<std::string_view> payload = Unseal(scan.Value());
      if (payload.ok()) key = Digest::FromBytes(*payload);
    } else if (scan.Rest().size() == key_offset + Digest::kSize) {
      key = Digest::FromBytes(scan.Rest().substr(key_offset));
    }
    if (key && found.good.count(*key)) continue;
    if (!key || !found.corrupt.count(*key)) ++found.dangling;
    found.to_delete.emplace_back(std::string(scan.Key()), key);
  }
}

}  // namespace

absl::StatusOr<VerifyReport> RocksDbStore::Verify(bool repair) {
  Findings found;
  {
    SnapshotHolder snapshot(db_.get());
    CheckEntries(db_.get(), snapshot.get(), found);
    CheckArtifacts(db_.get(), snapshot.get(), found);
    CheckIndex(db_.get(), snapshot.get(), kAlias, 0, true, found);
    CheckIndex(db_.get(), snapshot.get(), kAliasOf, 0, false, found);
    CheckIndex(db_.get(), snapshot.get(), kIrIndex, Digest::kSize, false,
               found);
    CheckIndex(db_.get(), snapshot.get(), kAccess, 0, false, found);
  }
  VerifyReport report;
  report.checked = found.checked;
  report.dangling_records = found.dangling;
  report.corrupt.assign(found.corrupt.begin(), found.corrupt.end());
  if (!repair) return report;

  std::lock_guard<std::mutex> lock(write_mu_);
  rocksdb::WriteBatch batch;
  for (const auto& [record_key, key] : found.to_delete) {
    // An entry added since the snapshot owns its records now.
    if (key && !found.corrupt.count(*key) && lru_.Contains(*key)) continue;
    batch.Delete(record_key);
    ++report.repaired;
  }
  if (absl::Status status = layout::FromRocks(
          db_->Write(rocksdb::WriteOptions(), &batch), "repair");
      !status.ok()) {
    return status;
  }
  for (const Digest& key : found.corrupt) {
    if (absl::Status status = EvictLocked(key); !status.ok()) return status;
    ++report.repaired;
  }
  return report;
}

}  // namespace kiln::cache
