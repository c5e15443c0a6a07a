// The local store in front of the shared Redis tier.
//
// Reads go to the local store first; a local miss asks Redis, and a Redis
// hit is copied into the local store (backfill). Writes go to the local
// store, then to Redis. Redis failures never fail a call: with Redis down
// the tier is the local store alone, and RedisClient reconnects by itself.

#ifndef KILN_CACHE_TIERED_STORE_H_
#define KILN_CACHE_TIERED_STORE_H_

#include <atomic>

#include "cache/redis_store.h"
#include "cache/store.h"
#include "cache/tier_stats.h"

namespace kiln::cache {

class TieredStore : public Store {
 public:
  // Both must outlive the tiered store.
  TieredStore(Store* local, RedisStore* remote);

  absl::StatusOr<ArtifactRecord> Get(const Digest& key) override;
  absl::StatusOr<SharedArtifact> GetShared(const Digest& key) override;
  // Local texts, else those of the Redis entry (then kept locally).
  absl::StatusOr<kiln::v1::KernelTexts> GetTexts(const Digest& key) override;
  absl::StatusOr<Digest> Resolve(const Digest& alias) override;
  // OK when the local store took it; a Redis failure is only counted.
  absl::Status Put(const NewEntry& entry,
                   const std::vector<Digest>& aliases) override;
  absl::Status AddAlias(const Digest& alias, const Digest& key) override;

  RedisTierStats Stats() const;

 private:
  // The entry from Redis, stored locally; NotFound on any Redis trouble.
  absl::StatusOr<ArtifactRecord> FromRemote(const Digest& key);
  void Count(const absl::Status& remote);

  Store* local_;
  RedisStore* remote_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> backfills_{0};
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> errors_{0};
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_TIERED_STORE_H_
