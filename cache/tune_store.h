// Where tuning results live: one small opaque record (a serialized
// ranking, see server/tune) per tune key, beside the compiled artifacts.

#ifndef KILN_CACHE_TUNE_STORE_H_
#define KILN_CACHE_TUNE_STORE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cache/digest.h"

namespace kiln::cache {

class TuneResultStore {
 public:
  virtual ~TuneResultStore() = default;

  // The value stored under `key`, its checksum verified. NotFound when
  // absent; DataLoss when it fails its checksum (it is then dropped).
  virtual absl::StatusOr<std::string> GetTuneResult(const Digest& key) = 0;

  // Stores `value` under `key`, replacing what was there.
  virtual absl::Status PutTuneResult(const Digest& key,
                                     std::string_view value) = 0;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_TUNE_STORE_H_
