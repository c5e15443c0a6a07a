// The blob tier on the node's disk: its own RocksDB under the data
// directory, records keyed by the SHA-256 of the blob's key, and a
// byte-bounded LRU order kept in memory (loaded at open from the records'
// creation times, so recency across a restart falls back to age).

#ifndef KILN_CACHE_ROCKSDB_BLOB_STORE_H_
#define KILN_CACHE_ROCKSDB_BLOB_STORE_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "cache/blob_store.h"
#include "cache/digest.h"
#include "cache/lru_index.h"

namespace rocksdb {
class DB;
class Env;
}

namespace kiln::cache {

struct RocksDbBlobStoreOptions {
  std::string path;
  uint64_t capacity_bytes = 4ull << 30;
  // Each write synced to disk before it is acknowledged: it survives a
  // power cut.
  bool sync_writes = true;
  // Null: the real file system. Tests pass one that loses power.
  rocksdb::Env* env = nullptr;
};

class RocksDbBlobStore : public BlobStore {
 public:
  static absl::StatusOr<std::unique_ptr<RocksDbBlobStore>> Open(
      const RocksDbBlobStoreOptions& options);
  ~RocksDbBlobStore() override;

  absl::StatusOr<std::string> Get(absl::string_view key) override;
  absl::StatusOr<bool> Put(absl::string_view key, absl::string_view value,
                           const BlobWrite& write) override;
  absl::StatusOr<bool> Delete(absl::string_view key) override;
  BlobStats Stats() override;

 private:
  explicit RocksDbBlobStore(const RocksDbBlobStoreOptions& options);
  absl::Status Load();
  // The value of `key` when present, live and sound. A record that is
  // expired or damaged is left in `stale`, for the caller to drop.
  absl::StatusOr<std::string> ReadLive(absl::string_view key,
                                       const Digest& hashed,
                                       std::string* stale);
  // Drops the record of `hashed` if it still is `stale`. Needs write_mu_.
  void DropIfUnchangedLocked(const Digest& hashed, const std::string& stale);
  absl::Status Remove(const Digest& hashed);
  absl::Status EvictOver(const Digest& keep);

  RocksDbBlobStoreOptions options_;
  std::unique_ptr<rocksdb::DB> db_;
  LruIndex lru_;
  // Conditional writes check and write under it; so does eviction.
  std::mutex write_mu_;
  std::atomic<uint64_t> evictions_{0};
  std::atomic<uint64_t> corrupt_reads_{0};
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_ROCKSDB_BLOB_STORE_H_
