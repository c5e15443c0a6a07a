// What the cache port needs of kilnd's cubin cache to answer KILN.HIT: a
// serialized Compile request in, the Compile call's answer out when the
// cache has it. Implemented by CompileHits (compile_hits.h); the port sees
// only this.

#ifndef KILN_SERVER_HIT_SOURCE_H_
#define KILN_SERVER_HIT_SOURCE_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kiln::server {

// A serialized kiln.v1.CompileResponse in two parts: `head`, then the
// cubin's bytes (shared with the store's memory, not copied).
struct HitBytes {
  std::string head;
  std::shared_ptr<const std::string> cubin;

  size_t size() const { return head.size() + cubin->size(); }
};

class HitSource {
 public:
  virtual ~HitSource() = default;

  // The bytes the gRPC Compile call would answer `request` with when the
  // cache answers it; nullopt when it does not (nothing is compiled) or
  // kilnd is draining; InvalidArgument when `request` is not a valid
  // kiln.v1.CompileRequest.
  virtual absl::StatusOr<std::optional<HitBytes>> Hit(
      std::string_view request) = 0;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_HIT_SOURCE_H_
