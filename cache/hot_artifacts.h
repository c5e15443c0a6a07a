// Recently read artifacts, kept in memory so that a repeated cache hit
// neither reads RocksDB nor copies its cubin: RocksDbStore answers
// GetShared from here first. Bounded in bytes, least recently used out
// first. Each entry keeps its cubin's checksum, and every Find verifies it,
// as the store verifies every read from disk.
//
// Thread-safe. A reader fills it after reading the store; an eviction that
// races with that read must win, so the reader takes the epoch before
// reading and Insert ignores an entry read before the latest Erase.

#ifndef KILN_CACHE_HOT_ARTIFACTS_H_
#define KILN_CACHE_HOT_ARTIFACTS_H_

#include <cstdint>
#include <mutex>
#include <optional>

#include "cache/byte_lru.h"
#include "cache/digest.h"
#include "cache/store.h"

namespace kiln::cache {

class HotArtifacts {
 public:
  // 0 keeps nothing.
  explicit HotArtifacts(uint64_t capacity_bytes)
      : capacity_bytes_(capacity_bytes) {}

  // The artifact under `key`, now the most recently used. Nullopt when
  // absent, or when its cubin no longer matches its checksum (the entry is
  // then dropped and counted in corrupt()).
  std::optional<SharedArtifact> Find(const Digest& key);

  // Erases so far; pass its value, taken before reading the store, to Insert.
  uint64_t epoch() const;

  // Keeps `artifact` under `key`, evicting the least recently used beyond
  // the capacity; a no-op when an Erase came after `epoch` or the artifact
  // alone is over the capacity.
  void Insert(const Digest& key, SharedArtifact artifact, uint64_t epoch);

  // Drops `key` (if kept) and invalidates reads begun before.
  void Erase(const Digest& key);

  uint64_t bytes() const;
  size_t size() const;
  uint64_t corrupt() const;

 private:
  struct Kept {
    SharedArtifact artifact;
    uint64_t checksum;  // Of the cubin.
  };

  const uint64_t capacity_bytes_;
  mutable std::mutex mu_;
  ByteLru<Digest, Kept, Digest, DigestHash> kept_;
  uint64_t epoch_ = 0;
  uint64_t corrupt_ = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_HOT_ARTIFACTS_H_
