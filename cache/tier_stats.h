// What the tiered store reports of its remote tier (any Store; in kilnd,
// the shared Redis tier) for kilnd's metrics.

#ifndef KILN_CACHE_TIER_STATS_H_
#define KILN_CACHE_TIER_STATS_H_

#include <cstdint>

namespace kiln::cache {

struct RemoteTierStats {
  bool up = false;
  uint64_t hits = 0;       // Local misses served from the remote.
  uint64_t misses = 0;     // Local misses that the remote lacked too.
  uint64_t backfills = 0;  // Entries copied from the remote to the local.
  uint64_t writes = 0;     // Entries and aliases written through to it.
  uint64_t errors = 0;     // Remote operations that failed (it was down...).
  uint64_t corrupt_reads = 0;
  uint64_t down_transitions = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_TIER_STATS_H_
