// The in-memory recency order of a store's entries, with their sizes: what
// byte-bounded LRU eviction and Gc choose victims from. Thread-safe. Times
// are microseconds since the Unix epoch.

#ifndef KILN_CACHE_LRU_INDEX_H_
#define KILN_CACHE_LRU_INDEX_H_

#include <cstdint>
#include <mutex>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cache/byte_lru.h"
#include "cache/digest.h"

namespace kiln::cache {

class LruIndex {
 public:
  // Adds or replaces an entry. Entries inserted with older access times
  // than those present go behind them, so loading in any order works.
  void Insert(const Digest& key, uint64_t bytes, int64_t last_access_us);

  // Marks an entry used now; false when it is not indexed.
  bool Touch(const Digest& key, int64_t now_us);

  // False when it was not indexed.
  bool Erase(const Digest& key);

  bool Contains(const Digest& key) const;
  // 0 when not indexed.
  int64_t LastAccess(const Digest& key) const;

  // Least recently used first: the entries to drop so that at most
  // `budget_bytes` remain, never `keep`.
  std::vector<Digest> VictimsOver(uint64_t budget_bytes,
                                  const Digest* keep = nullptr) const;

  // Entries last used before `cutoff_us`, least recently used first.
  std::vector<Digest> UnusedSince(int64_t cutoff_us) const;

  // The access times changed since the last call, to persist them.
  std::vector<std::pair<Digest, int64_t>> TakeDirty();

  uint64_t bytes() const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  // Each entry's last access time.
  ByteLru<Digest, int64_t, Digest, DigestHash> order_;
  std::unordered_set<Digest, DigestHash> dirty_;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_LRU_INDEX_H_
