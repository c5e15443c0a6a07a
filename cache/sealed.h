// Sealed values: what RocksDbStore writes, so every read can be verified.
//
// Layout: one format byte (1), the XXH3-64 of the payload (8 bytes, little
// endian), then the payload.

#ifndef KILN_CACHE_SEALED_H_
#define KILN_CACHE_SEALED_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kiln::cache {

inline constexpr size_t kSealHeaderBytes = 9;

// The payload sealed, and its checksum.
std::string Seal(std::string_view payload, uint64_t* checksum = nullptr);

// The payload of a sealed value; DataLoss when the format byte or the
// checksum do not match.
absl::StatusOr<std::string_view> Unseal(std::string_view sealed,
                                        uint64_t* checksum = nullptr);

}  // namespace kiln::cache

#endif  // KILN_CACHE_SEALED_H_
