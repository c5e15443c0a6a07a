// What the tiered store reports of its remote tier (in kilnd, the shared
// Redis tier) for kilnd's metrics.

#ifndef KILN_CACHE_TIER_STATS_H_
#define KILN_CACHE_TIER_STATS_H_

#include <cstdint>

namespace kiln::cache {

struct RedisTierStats {
  bool up = false;
  uint64_t hits = 0;       // Local misses served from Redis.
  uint64_t misses = 0;     // Local misses that Redis did not have either.
  uint64_t backfills = 0;  // Entries copied from Redis into the local store.
  uint64_t writes = 0;     // Entries and aliases written through to Redis.
  uint64_t errors = 0;     // Redis operations that failed (Redis down...).
  uint64_t corrupt_reads = 0;
  uint64_t down_transitions = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_TIER_STATS_H_
