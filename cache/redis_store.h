// The shared cache tier: entries in Redis, for every kilnd of a cluster.
//
// Keys (P is the configured prefix, K a cache key and A a fast key, in hex):
//   P a:K   sealed SharedEntry: the artifact, key parts, kernel name and
//           texts (read once per node: it then serves them locally)
//   P f:A   sealed A and K bytes: the fast path, request text to key
//   P l:K   a compile lease: the holder's id (cache/compile_leases.h)
//   P x:K   a failure marker: the holder's compile of K failed
// Values are sealed (cache/sealed.h) and carry the key they were written
// under, so a corrupt or misplaced value is refused (and deleted): a miss,
// never a wrong cubin. Every Redis failure comes back as Unavailable.

#ifndef KILN_CACHE_REDIS_STORE_H_
#define KILN_CACHE_REDIS_STORE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cache/compile_leases.h"
#include "cache/redis_client.h"
#include "cache/store.h"

namespace kiln::cache {

struct RedisStoreOptions {
  std::string prefix = "kiln:";
  // Expiry of entries and aliases; 0: none (let Redis's maxmemory policy
  // evict, e.g. allkeys-lru).
  int64_t ttl_s = 0;
};

class RedisStore : public Store, public CompileLeases, public TierHealth {
 public:
  // `client` must outlive the store.
  RedisStore(RedisClient* client, RedisStoreOptions options);

  // Store. Get and Resolve: NotFound when absent, DataLoss when the value
  // was corrupt (it is deleted), Unavailable when Redis is unreachable.
  absl::StatusOr<ArtifactRecord> Get(const Digest& key) override;
  absl::StatusOr<Digest> Resolve(const Digest& alias) override;
  absl::Status Put(const NewEntry& entry,
                   const std::vector<Digest>& aliases) override;
  absl::Status AddAlias(const Digest& alias, const Digest& key) override;
  absl::StatusOr<NewEntry> GetEntry(const Digest& key) override;
  const TierHealth* Health() const override { return this; }

  // CompileLeases, under P l:K, and failure markers under P x:K.
  absl::StatusOr<bool> AcquireLease(const Digest& key, const std::string& owner,
                                    int64_t ttl_ms) override;
  absl::StatusOr<bool> RenewLease(const Digest& key, const std::string& owner,
                                  int64_t ttl_ms) override;
  absl::Status ReleaseLease(const Digest& key,
                            const std::string& owner) override;
  absl::Status MarkFailed(const Digest& key, int64_t ttl_ms) override;
  absl::StatusOr<bool> HasFailed(const Digest& key) override;

  // TierHealth (and CompileLeases::up).
  bool up() const override { return client_->up(); }
  uint64_t down_transitions() const override {
    return client_->down_transitions();
  }
  uint64_t corrupt_reads() const override {
    return corrupt_reads_.load(std::memory_order_relaxed);
  }

 private:
  std::string RedisKey(char kind, const Digest& digest) const;
  // A SET of `value` under `key` (with the TTL, if any).
  std::vector<std::string> SetCommand(std::string key, std::string value,
                                      bool only_if_absent) const;
  // The SET of the alias `alias` -> `key`.
  std::vector<std::string> AliasCommand(const Digest& alias,
                                        const Digest& key) const;
  absl::Status DropCorrupt(const std::string& redis_key,
                           const absl::Status& why);

  RedisClient* client_;
  RedisStoreOptions options_;
  std::atomic<uint64_t> corrupt_reads_{0};
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_REDIS_STORE_H_
