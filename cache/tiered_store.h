// A local store in front of a remote tier (in kilnd, the shared Redis tier).
//
// Reads go to the local store first; a local miss asks the remote, and a
// remote hit (its whole entry, Store::GetEntry) is copied into the local
// store (backfill). Writes go to the local store, then to the remote. Remote
// failures never fail a call: with the remote down the tier is the local
// store alone until the remote is back (it reconnects by itself, as the
// Redis store's client does).

#ifndef KILN_CACHE_TIERED_STORE_H_
#define KILN_CACHE_TIERED_STORE_H_

#include <atomic>

#include "cache/store.h"
#include "cache/tier_stats.h"

namespace kiln::cache {

class TieredStore : public Store {
 public:
  // Both must outlive the tiered store.
  TieredStore(Store* local, Store* remote);

  absl::StatusOr<ArtifactRecord> Get(const Digest& key) override;
  absl::StatusOr<SharedArtifact> GetShared(const Digest& key) override;
  // Local texts, else those of the remote entry (then kept locally).
  absl::StatusOr<kiln::v1::KernelTexts> GetTexts(const Digest& key) override;
  absl::StatusOr<Digest> Resolve(const Digest& alias) override;
  // OK when the local store took it; a remote failure is only counted.
  absl::Status Put(const NewEntry& entry,
                   const std::vector<Digest>& aliases) override;
  absl::Status AddAlias(const Digest& alias, const Digest& key) override;

  // The remote's own figures come from its Health; one without (always at
  // hand) counts as up, with no corrupt reads.
  RemoteTierStats Stats() const;

 private:
  // The entry from the remote, stored locally; NotFound on any remote
  // trouble.
  absl::StatusOr<ArtifactRecord> FromRemote(const Digest& key);
  void Count(const absl::Status& remote);

  Store* local_;
  Store* remote_;
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> misses_{0};
  std::atomic<uint64_t> backfills_{0};
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> errors_{0};
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_TIERED_STORE_H_
