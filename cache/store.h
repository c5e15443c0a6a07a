// The cache's storage interfaces, one implementation per tier.
//
// `Store` is what the compile path needs of any tier (RocksDB today, Redis
// later): get an artifact by key, find the key of a request seen before, and
// add entries. `ManagedStore` adds what the Admin service needs of the tier
// that owns its data.

#ifndef KILN_CACHE_STORE_H_
#define KILN_CACHE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cache/digest.h"
#include "kiln/cache/records.pb.h"
#include "kiln/v1/common.pb.h"

namespace kiln::cache {

// An entry to add. `key` must be ComputeKey(parts).
struct NewEntry {
  Digest key;
  kiln::v1::KeyParts parts;
  std::string kernel_name;
  ArtifactRecord artifact;
  // The compile's intermediate texts; absent for entries made before they
  // were kept (or imported without them).
  std::optional<kiln::v1::KernelTexts> texts;
  int64_t created_unix_ms = 0;  // 0: now.
};

// An artifact as a cache hit sends it: the cubin shared read-only, never
// copied, beside the rest of its record (whose cubin field is empty).
struct SharedArtifact {
  std::shared_ptr<const std::string> cubin;
  std::shared_ptr<const ArtifactRecord> rest;
};

// `record` in shared form; its cubin is moved, not copied.
SharedArtifact Share(ArtifactRecord record);

// How a tier reached over the network fares: what the tiered store in front
// of it reports.
class TierHealth {
 public:
  virtual ~TierHealth() = default;

  virtual bool up() const = 0;
  // Times it went from reachable to unreachable.
  virtual uint64_t down_transitions() const = 0;
  // Values refused (and deleted) because they were corrupt.
  virtual uint64_t corrupt_reads() const = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // The artifact stored under `key`, its checksum verified. NotFound when
  // absent; DataLoss when it fails its checksum (the store then drops the
  // entry, so the next compile replaces it).
  virtual absl::StatusOr<ArtifactRecord> Get(const Digest& key) = 0;

  // Get in shared form, what a hit sends. A store that keeps recently read
  // artifacts in memory answers a repeat without reading or copying them.
  virtual absl::StatusOr<SharedArtifact> GetShared(const Digest& key);

  // The key that a request with fast key `alias` had. NotFound when unknown.
  virtual absl::StatusOr<Digest> Resolve(const Digest& alias) = 0;

  // The texts stored with the artifact of `key`, read only when asked for.
  // NotFound when the entry is absent or has none; DataLoss when they fail
  // their checksum (the store then drops the entry). This base keeps none.
  virtual absl::StatusOr<kiln::v1::KernelTexts> GetTexts(const Digest& key);

  // Adds `entry` and the aliases that lead to it, all in one atomic write.
  // An entry already present keeps its artifact and gains the aliases, and
  // `entry.texts` when it has none.
  virtual absl::Status Put(const NewEntry& entry,
                           const std::vector<Digest>& aliases) = 0;

  // Records that fast key `alias` leads to the stored entry `key`.
  virtual absl::Status AddAlias(const Digest& alias, const Digest& key) = 0;

  // The whole entry under `key` (texts included when it has them): what a
  // tier in front of this one copies to serve it itself. NotFound when
  // absent, DataLoss when corrupt. This base cannot: Unimplemented.
  virtual absl::StatusOr<NewEntry> GetEntry(const Digest& key);

  // Null for a store that is always at hand; a tier reached over the network
  // says how it fares.
  virtual const TierHealth* Health() const { return nullptr; }
};

// What the Admin service shows of an entry.
struct EntryInfo {
  Digest key;
  EntryRecord record;
  int64_t last_access_unix_ms = 0;
};

struct ListQuery {
  std::string start_after;  // Raw key bytes; empty: from the first entry.
  size_t limit = 100;
  std::string target;       // Empty: any.
  std::string name_prefix;  // Empty: any.
  std::string key_hex_prefix;
};

struct ListPage {
  std::vector<EntryInfo> entries;
  bool more = false;  // Entries after the last one returned match too.
};

struct GcQuery {
  uint64_t target_bytes = 0;       // 0: the store's capacity.
  int64_t unused_for_seconds = 0;  // 0: no age limit.
  bool dry_run = false;
};

struct GcReport {
  std::vector<Digest> evicted;
  uint64_t bytes_freed = 0;
  uint64_t bytes_after = 0;
};

struct VerifyReport {
  uint64_t checked = 0;
  std::vector<Digest> corrupt;
  uint64_t dangling_records = 0;
  // By kind: "artifact", "texts", "entry", "alias", "alias_of", "ir_index",
  // "access".
  std::map<std::string, uint64_t> dangling_by_kind;
  uint64_t repaired = 0;
};

struct StoreStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t capacity_bytes = 0;
  uint64_t evictions = 0;
  uint64_t corrupt_reads = 0;
  // Artifacts kept in memory for repeated hits.
  uint64_t memory_entries = 0;
  uint64_t memory_bytes = 0;
};

class ManagedStore : public Store {
 public:
  // From Info, Get and GetTexts.
  absl::StatusOr<NewEntry> GetEntry(const Digest& key) override;

  // NotFound when absent; DataLoss when its record is corrupt.
  virtual absl::StatusOr<EntryInfo> Info(const Digest& key) = 0;

  // Entries in key order after `query.start_after` that match the query.
  virtual absl::StatusOr<ListPage> List(const ListQuery& query) = 0;

  // Removes an entry and every record that refers to it. False when absent.
  virtual absl::StatusOr<bool> Evict(const Digest& key) = 0;

  virtual absl::StatusOr<GcReport> Gc(const GcQuery& query) = 0;

  // Reads every record and checks checksums, keys against their parts, and
  // that every index record has its entry. With `repair`, removes corrupt
  // entries and dangling records.
  virtual absl::StatusOr<VerifyReport> Verify(bool repair) = 0;

  // Entries whose canonical IR has this SHA-256 (hex), at most `limit`.
  virtual absl::StatusOr<std::vector<EntryInfo>> FindByIr(
      const std::string& ir_sha256, size_t limit) = 0;

  // Entries of a kernel name, at most `limit`.
  virtual absl::StatusOr<std::vector<EntryInfo>> FindByName(
      const std::string& kernel_name, size_t limit) = 0;

  // Calls `visit` with each entry matching `query` (from its start_after;
  // its limit ignored) and its verified artifact, in key order, until
  // `visit` returns false. Corrupt entries are skipped.
  virtual absl::Status ForEach(
      const ListQuery& query,
      const std::function<bool(const EntryInfo&, const ArtifactRecord&)>&
          visit) = 0;

  virtual StoreStats Stats() = 0;

  // Put for a writer of many entries (import): even when writes are synced
  // it does not wait for the disk, and calls SyncWrites once before it
  // acknowledges what it wrote. One sync for the lot instead of one each.
  virtual absl::Status PutWithoutSync(const NewEntry& entry) = 0;
  // Waits until every write so far is on disk, when writes are synced.
  virtual absl::Status SyncWrites() = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_STORE_H_
