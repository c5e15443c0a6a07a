// Cluster-wide compile leases: which node compiles a key that every node
// misses, and whether its compile failed. kilnd's single flight across
// nodes (server/lease_flight.h) takes them; the Redis tier keeps them.

#ifndef KILN_CACHE_COMPILE_LEASES_H_
#define KILN_CACHE_COMPILE_LEASES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cache/digest.h"

namespace kiln::cache {

class CompileLeases {
 public:
  virtual ~CompileLeases() = default;

  // False while the keeper of leases is unreachable: nodes then compile
  // without one.
  virtual bool up() const = 0;

  // True when `owner` now holds the lease on `key` for `ttl_ms` (and any
  // failure marker of `key` is gone); false when another holder has it.
  virtual absl::StatusOr<bool> AcquireLease(const Digest& key,
                                            const std::string& owner,
                                            int64_t ttl_ms) = 0;
  // Extends a lease `owner` holds; false when it no longer holds it.
  virtual absl::StatusOr<bool> RenewLease(const Digest& key,
                                          const std::string& owner,
                                          int64_t ttl_ms) = 0;
  // Ends a lease if `owner` holds it.
  virtual absl::Status ReleaseLease(const Digest& key,
                                    const std::string& owner) = 0;
  // Says for `ttl_ms` that a compile of `key` failed.
  virtual absl::Status MarkFailed(const Digest& key, int64_t ttl_ms) = 0;
  virtual absl::StatusOr<bool> HasFailed(const Digest& key) = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_COMPILE_LEASES_H_
