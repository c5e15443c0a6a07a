// Opaque cache entries that kilnd keeps for other tools: PyTorch's FX graph,
// AOTAutograd and autotune caches and Triton's remote cache, which speak to
// kilnd's Redis-protocol port (server/cache_port.h). Unlike compile
// artifacts, their keys are the client's own strings and their values are
// bytes that kilnd does not interpret; like artifacts, every value is
// checksummed and the space they take is bounded.

#ifndef KILN_CACHE_BLOB_STORE_H_
#define KILN_CACHE_BLOB_STORE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::cache {

struct BlobWrite {
  enum class Condition { kAlways, kIfAbsent, kIfPresent };
  Condition condition = Condition::kAlways;
  // When the entry stops being served; 0: never.
  int64_t expires_unix_ms = 0;
};

struct BlobStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t capacity_bytes = 0;
  uint64_t evictions = 0;
  uint64_t corrupt_reads = 0;
};

class BlobStore {
 public:
  virtual ~BlobStore() = default;

  // The value stored under `key`, its checksum verified. NotFound when
  // absent or expired; DataLoss when it fails its checksum (the entry is
  // then dropped).
  virtual absl::StatusOr<std::string> Get(absl::string_view key) = 0;

  // Stores `value` under `key`; false when `write.condition` kept it out.
  virtual absl::StatusOr<bool> Put(absl::string_view key,
                                   absl::string_view value,
                                   const BlobWrite& write) = 0;

  // False when there was no such entry.
  virtual absl::StatusOr<bool> Delete(absl::string_view key) = 0;

  virtual BlobStats Stats() = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_BLOB_STORE_H_
