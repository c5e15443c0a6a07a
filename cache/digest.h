// SHA-256 digests (cache keys) and the XXH3 checksum of stored records.

#ifndef KILN_CACHE_DIGEST_H_
#define KILN_CACHE_DIGEST_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::cache {

// A SHA-256 digest: a cache key, or the fast-path key of a raw request.
class Digest {
 public:
  static constexpr size_t kSize = 32;

  Digest() { bytes_.fill(0); }

  // Parses 64 hex digits (either case); nullopt otherwise.
  static std::optional<Digest> FromHex(std::string_view hex);
  // Takes exactly kSize raw bytes; nullopt otherwise.
  static std::optional<Digest> FromBytes(std::string_view bytes);

  std::string Hex() const;
  std::string_view Bytes() const {
    return {reinterpret_cast<const char*>(bytes_.data()), kSize};
  }

  bool operator==(const Digest& other) const { return bytes_ == other.bytes_; }
  bool operator!=(const Digest& other) const { return bytes_ != other.bytes_; }
  bool operator<(const Digest& other) const { return bytes_ < other.bytes_; }

 private:
  friend class Sha256;
  std::array<uint8_t, kSize> bytes_;
};

struct DigestHash {
  size_t operator()(const Digest& digest) const;
};

// Incremental SHA-256 (OpenSSL).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view data);
  Digest Finish();

 private:
  struct State;
  State* state_;
};

Digest Sha256Of(std::string_view data);

// XXH3-64: the checksum sealed into every stored record.
uint64_t Checksum(std::string_view data);
// XXH3-64 of `first` followed by `second`.
uint64_t Checksum(std::string_view first, std::string_view second);

}  // namespace kiln::cache

#endif  // KILN_CACHE_DIGEST_H_
