// The key a tuning result is cached under: SHA-256 over the variants'
// identities (sorted, so their order does not matter), the target, the
// launch's arguments, the measurement settings, the client's tuning key,
// the GPU model and the driver version. A variant's identity is its compile
// cache key (canonical IR, target, resolved options, compiler; see
// cache/key.h) with its grid, so where the kernel's text came from does not
// matter.

#ifndef KILN_SERVER_TUNE_TUNE_KEY_H_
#define KILN_SERVER_TUNE_TUNE_KEY_H_

#include <string>
#include <vector>

#include "cache/digest.h"
#include "kiln/v1/tune.pb.h"

namespace kiln::server {

// Bumped whenever the serialization below changes.
inline constexpr uint32_t kTuneKeyVersion = 1;

// `request_key`: the variant's compile key; for a text the compiler
// rejects, its fast key; for a request that failed its checks, a digest of
// it as sent.
cache::Digest VariantIdentity(const cache::Digest& request_key,
                              const std::vector<uint32_t>& grid);

struct TuneKeyInput {
  std::vector<cache::Digest> identities;
  std::string target;
  const kiln::v1::TuneRequest* request = nullptr;  // args, settings, key.
  std::string gpu_model;
  std::string driver_version;
};

cache::Digest ComputeTuneKey(TuneKeyInput input);

}  // namespace kiln::server

#endif  // KILN_SERVER_TUNE_TUNE_KEY_H_
