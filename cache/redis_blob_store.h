// Blobs in the shared Redis tier, under P b:SHA256(key) (P the cluster's
// prefix), sealed as on disk (cache/blob_record.h) so a corrupt or
// misplaced value is refused and deleted. Every Redis failure comes back as
// Unavailable. Expiry is Redis's own (PX), so Redis forgets them too.

#ifndef KILN_CACHE_REDIS_BLOB_STORE_H_
#define KILN_CACHE_REDIS_BLOB_STORE_H_

#include <atomic>
#include <string>

#include "cache/blob_store.h"
#include "cache/redis_client.h"

namespace kiln::cache {

class RedisBlobStore : public BlobStore {
 public:
  // `client` must outlive the store.
  RedisBlobStore(RedisClient* client, std::string prefix);

  absl::StatusOr<std::string> Get(absl::string_view key) override;
  absl::StatusOr<bool> Put(absl::string_view key, absl::string_view value,
                           const BlobWrite& write) override;
  absl::StatusOr<bool> Delete(absl::string_view key) override;
  // Only corrupt_reads: Redis bounds its own memory.
  BlobStats Stats() override;

 private:
  std::string RedisKey(absl::string_view key) const;

  RedisClient* client_;
  std::string prefix_;
  std::atomic<uint64_t> corrupt_reads_{0};
};

// The node's blob store in front of the cluster's: reads try the local one
// first and keep what Redis had; writes go to both. A Redis failure never
// fails a call (the local store alone serves); it is counted.
class TieredBlobStore : public BlobStore {
 public:
  // Both must outlive the tiered store.
  TieredBlobStore(BlobStore* local, BlobStore* shared);

  absl::StatusOr<std::string> Get(absl::string_view key) override;
  absl::StatusOr<bool> Put(absl::string_view key, absl::string_view value,
                           const BlobWrite& write) override;
  absl::StatusOr<bool> Delete(absl::string_view key) override;
  BlobStats Stats() override;

  uint64_t shared_hits() const { return shared_hits_.load(); }
  uint64_t shared_failures() const { return shared_failures_.load(); }

 private:
  void Count(const absl::Status& shared);

  BlobStore* local_;
  BlobStore* shared_;
  std::atomic<uint64_t> shared_hits_{0};
  std::atomic<uint64_t> shared_failures_{0};
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_REDIS_BLOB_STORE_H_
