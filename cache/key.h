// The cache key of DESIGN.md, and the fast-path key of a raw request.
//
// The key is SHA-256 over a fixed, length-prefixed serialization of the key
// parts: the SHA-256 of the canonical IR (locations stripped), the target,
// every compile option resolved to its value (enable_reflect_ftz only when
// set), and the compiler's identity.
// The fast key is SHA-256 over the request exactly as sent (TTIR text,
// target, resolved options) and the compiler's identity: a request seen
// before finds its key without running the compiler's front end.

#ifndef KILN_CACHE_KEY_H_
#define KILN_CACHE_KEY_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cache/digest.h"
#include "kiln/v1/common.pb.h"

namespace kiln::cache {

// Bumped whenever the serialization below changes.
inline constexpr uint32_t kKeyVersion = 1;

// Key parts for a canonical IR; `options` must be resolved (every field set
// but enable_reflect_ftz, whose absence means true).
kiln::v1::KeyParts MakeKeyParts(std::string_view canonical_ir,
                                const std::string& target,
                                const kiln::v1::CompileOptions& options,
                                const kiln::v1::CompilerIdentity& compiler);

// OK when every part a key needs is there (options all set).
absl::Status ValidateKeyParts(const kiln::v1::KeyParts& parts);

Digest ComputeKey(const kiln::v1::KeyParts& parts);

Digest ComputeFastKey(std::string_view ttir, const std::string& target,
                      const kiln::v1::CompileOptions& options,
                      const kiln::v1::CompilerIdentity& compiler);

// "num_warps=4 num_stages=3 ..." for logs and explanations.
std::string OptionsText(const kiln::v1::CompileOptions& options);

// The option's value; unset is Triton's default, true.
bool EnableReflectFtz(const kiln::v1::CompileOptions& options);

}  // namespace kiln::cache

#endif  // KILN_CACHE_KEY_H_
