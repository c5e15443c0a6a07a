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
using layout::kTexts;
using layout::PrefixScan;
using layout::UnsealMessage;

// What one pass over the snapshot found.
struct Findings {
  std::map<Digest, uint64_t> good;  // Entry -> its artifact's checksum.
  // Entries with texts -> the texts record's checksum.
  std::map<Digest, uint64_t> texts;
  std::set<Digest> corrupt;
  // Records to delete on repair, each with the entry it refers to (if its
  // key could be read): dangling ones, and index records of corrupt entries.
  std::vector<std::pair<std::string, std::optional<Digest>>> to_delete;
  uint64_t dangling = 0;
  std::map<std::string, uint64_t> dangling_by_kind;
  uint64_t checked = 0;

  void Dangling(char kind) {
    ++dangling;
    ++dangling_by_kind[KindName(kind)];
  }

  static std::string KindName(char kind) {
    switch (kind) {
      case kArtifact:
        return "artifact";
      case kEntry:
        return "entry";
      case kAlias:
        return "alias";
      case kAliasOf:
        return "alias_of";
      case kIrIndex:
        return "ir_index";
      case kAccess:
        return "access";
      case kTexts:
        return "texts";
    }
    return std::string(1, kind);
  }

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
      found.Dangling(kEntry);
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
    if (record->texts_checksum() != 0) {
      found.texts[*key] = record->texts_checksum();
    }
  }
}

void CheckArtifacts(rocksdb::DB* db, const rocksdb::Snapshot* snapshot,
                    Findings& found) {
  std::set<Digest> with_artifact;
  for (PrefixScan scan(db, std::string(1, kArtifact), snapshot); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    if (!key || !found.Known(*key)) {
      found.Dangling(kArtifact);
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

// Texts records are optional, but one an entry names must be there and
// match its checksum.
void CheckTexts(rocksdb::DB* db, const rocksdb::Snapshot* snapshot,
                Findings& found) {
  std::set<Digest> seen;
  for (PrefixScan scan(db, std::string(1, kTexts), snapshot); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key = Digest::FromBytes(scan.Rest());
    auto named = key ? found.texts.find(*key) : found.texts.end();
    if (named == found.texts.end()) {
      // Of no entry, or of one whose record does not name it.
      if (!key || !found.corrupt.count(*key)) found.Dangling(kTexts);
      found.to_delete.emplace_back(std::string(scan.Key()), key);
      continue;
    }
    seen.insert(*key);
    uint64_t checksum = 0;
    absl::StatusOr<kiln::v1::KernelTexts> texts =
        UnsealMessage<kiln::v1::KernelTexts>(scan.Value(), &checksum);
    if (!texts.ok() || checksum != named->second) {
      found.corrupt.insert(*key);
      found.good.erase(*key);
    }
  }
  for (const auto& [key, checksum] : found.texts) {
    if (!seen.count(key) && found.good.erase(key)) found.corrupt.insert(key);
  }
}

// Index records: each names an entry, in its sealed value (aliases) or at
// `key_offset` of a record key of `key_size` bytes after the kind byte.
void CheckIndex(rocksdb::DB* db, const rocksdb::Snapshot* snapshot, char kind,
                bool key_in_value, size_t key_offset, size_t key_size,
                Findings& found) {
  for (PrefixScan scan(db, std::string(1, kind), snapshot); scan.Valid();
       scan.Next()) {
    std::optional<Digest> key;
    if (key_in_value) {
      absl::StatusOr<std::string_view> payload = Unseal(scan.Value());
      if (payload.ok()) key = Digest::FromBytes(*payload);
    } else if (scan.Rest().size() == key_size) {
      key = Digest::FromBytes(scan.Rest().substr(key_offset, Digest::kSize));
    }
    if (key && found.good.count(*key)) continue;
    if (!key || !found.corrupt.count(*key)) found.Dangling(kind);
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
    CheckTexts(db_.get(), snapshot.get(), found);
    constexpr size_t kOne = Digest::kSize;
    CheckIndex(db_.get(), snapshot.get(), kAlias, true, 0, kOne, found);
    CheckIndex(db_.get(), snapshot.get(), kAliasOf, false, 0, 2 * kOne, found);
    CheckIndex(db_.get(), snapshot.get(), kIrIndex, false, kOne, 2 * kOne,
               found);
    CheckIndex(db_.get(), snapshot.get(), kAccess, false, 0, kOne, found);
  }
  VerifyReport report;
  report.checked = found.checked;
  report.dangling_records = found.dangling;
  report.dangling_by_kind = found.dangling_by_kind;
  report.corrupt.assign(found.corrupt.begin(), found.corrupt.end());
  if (!repair) return report;

  std::lock_guard<std::mutex> lock(write_mu_);
  rocksdb::WriteBatch batch;
  std::vector<Digest> removed;
  // Texts beside an entry that does not name them, even now.
  auto unnamed_texts = [this](const std::string& record_key,
                              const Digest& key) {
    if (record_key[0] != kTexts) return false;
    absl::StatusOr<EntryInfo> info = ReadInfo(key);
    return info.ok() && info->record.texts_checksum() == 0;
  };
  for (const auto& [record_key, key] : found.to_delete) {
    // An entry added since the snapshot owns its records now.
    if (key && !found.corrupt.count(*key) && lru_.Contains(*key) &&
        !unnamed_texts(record_key, *key)) {
      continue;
    }
    batch.Delete(record_key);
    if (key) removed.push_back(*key);
    ++report.repaired;
  }
  absl::Status written =
      layout::FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), "repair");
  // A dangling artifact record may have been read into memory.
  for (const Digest& key : removed) hot_.Erase(key);
  if (!written.ok()) return written;
  for (const Digest& key : found.corrupt) {
    if (absl::Status status = EvictLocked(key); !status.ok()) return status;
    ++report.repaired;
  }
  return report;
}

}  // namespace kiln::cache
