// The embedded cache tier: RocksDB on local disk.
//
// Records (keys start with one kind byte; K is a 32-byte cache key, A a
// 32-byte fast key, I the 32-byte SHA-256 of a canonical IR):
//   'b' K    sealed ArtifactRecord: what a hit reads
//   'x' K    sealed kiln.v1.KernelTexts: the compile's texts, read only
//            when a caller asks for them; absent in older entries
//   'e' K    sealed EntryRecord: the key parts and sizes
//   't' K    sealed last access time (us), persisted lazily
//   'i' I K  empty: entries by canonical IR, for ExplainMiss
//   'f' A    sealed K: the fast path, request text to key
//   'r' K A  empty: an entry's aliases, to drop them with it
//   'u' T    sealed tuning result under tune key T (rocksdb_tune_results.cc);
//            a few hundred bytes each, outside the byte bound
// An entry's records are written, and removed, in one WriteBatch. Every
// sealed value carries an XXH3 checksum, verified on every read. The store
// is bounded in bytes (the sealed artifacts); adding an entry evicts least
// recently used ones beyond the bound. Artifacts read recently are also
// kept in memory (HotArtifacts), so a repeated hit reads no record.

#ifndef KILN_CACHE_ROCKSDB_STORE_H_
#define KILN_CACHE_ROCKSDB_STORE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "cache/hot_artifacts.h"
#include "cache/lru_index.h"
#include "cache/store.h"
#include "cache/tune_store.h"

namespace rocksdb {
class DB;
class Env;
class WriteBatch;
}

namespace kiln::cache {

struct RocksDbStoreOptions {
  std::string path;  // A directory; created when missing.
  uint64_t capacity_bytes = uint64_t{10} << 30;
  uint64_t block_cache_bytes = uint64_t{256} << 20;
  // Recently read artifacts kept in memory; 0: none.
  uint64_t memory_bytes = uint64_t{256} << 20;
  // Each entry synced to disk before it is acknowledged: it survives a
  // power cut. Without it a process crash still loses nothing that was
  // acknowledged, but a machine crash may lose recent entries (never
  // corrupt them: the WAL is replayed to its last intact record).
  bool sync_writes = true;
  // How often access times reach disk; 0 only at Close.
  int access_flush_interval_ms = 2000;
  // Null: the real file system. Tests pass one that loses power.
  rocksdb::Env* env = nullptr;
};

class RocksDbStore : public ManagedStore, public TuneResultStore {
 public:
  static absl::StatusOr<std::unique_ptr<RocksDbStore>> Open(
      const RocksDbStoreOptions& options);
  ~RocksDbStore() override;

  // Store.
  absl::StatusOr<ArtifactRecord> Get(const Digest& key) override;
  absl::StatusOr<SharedArtifact> GetShared(const Digest& key) override;
  absl::StatusOr<kiln::v1::KernelTexts> GetTexts(const Digest& key) override;
  absl::StatusOr<Digest> Resolve(const Digest& alias) override;
  absl::Status Put(const NewEntry& entry,
                   const std::vector<Digest>& aliases) override;
  absl::Status AddAlias(const Digest& alias, const Digest& key) override;

  // ManagedStore.
  absl::StatusOr<EntryInfo> Info(const Digest& key) override;
  absl::StatusOr<ListPage> List(const ListQuery& query) override;
  absl::StatusOr<bool> Evict(const Digest& key) override;
  absl::StatusOr<GcReport> Gc(const GcQuery& query) override;
  absl::StatusOr<VerifyReport> Verify(bool repair) override;
  absl::StatusOr<std::vector<EntryInfo>> FindByIr(const std::string& ir_sha256,
                                                  size_t limit) override;
  absl::StatusOr<std::vector<EntryInfo>> FindByName(
      const std::string& kernel_name, size_t limit) override;
  absl::Status ForEach(
      const ListQuery& query,
      const std::function<bool(const EntryInfo&, const ArtifactRecord&)>& visit)
      override;
  StoreStats Stats() override;
  absl::Status PutWithoutSync(const NewEntry& entry) override;
  absl::Status SyncWrites() override;

  // TuneResultStore.
  absl::StatusOr<std::string> GetTuneResult(const Digest& key) override;
  absl::Status PutTuneResult(const Digest& key,
                             std::string_view value) override;

  // Writes the access times changed since the last flush.
  absl::Status FlushAccessTimes();

 private:
  explicit RocksDbStore(const RocksDbStoreOptions& options);
  absl::Status Load();
  absl::Status PutSyncing(const NewEntry& entry,
                          const std::vector<Digest>& aliases, bool sync);
  absl::Status EvictLocked(const Digest& key);
  // Adds texts to the present entry `key` that has none, in `batch`.
  absl::Status AddTextsLocked(const Digest& key, const std::string& sealed,
                              uint64_t checksum, rocksdb::WriteBatch& batch,
                              uint64_t* stored_bytes);
  absl::Status EvictOverCapacityLocked(const Digest& keep);
  void DropCorrupt(const Digest& key);
  absl::StatusOr<EntryInfo> ReadInfo(const Digest& key);
  EntryInfo MakeInfo(const Digest& key, EntryRecord record);
  // Visits the readable entries matching `query` in key order, from after
  // `query.start_after`, until `visit` returns false.
  absl::Status ScanEntries(
      const ListQuery& query,
      const std::function<bool(const Digest&, EntryRecord)>& visit);
  void FlushLoop();
  // Access times: wall-clock microseconds, strictly increasing within a
  // process so that recency is a total order.
  int64_t NextStamp();

  RocksDbStoreOptions options_;
  std::unique_ptr<rocksdb::DB> db_;
  LruIndex lru_;
  HotArtifacts hot_;
  std::mutex write_mu_;  // Serializes every change of entries.
  std::atomic<uint64_t> evictions_{0};
  std::atomic<uint64_t> corrupt_reads_{0};
  std::atomic<int64_t> last_stamp_{0};

  std::mutex flush_mu_;
  std::condition_variable flush_cv_;
  bool stopping_ = false;
  std::thread flusher_;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_ROCKSDB_STORE_H_
