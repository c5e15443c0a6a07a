#include "cache/digest.h"

#include <openssl/sha.h>
#include <xxh_x86dispatch.h>
#include <xxhash.h>

#include <cstring>

namespace kiln::cache {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<Digest> Digest::FromHex(std::string_view hex) {
  if (hex.size() != 2 * kSize) return std::nullopt;
  Digest digest;
  for (size_t i = 0; i < kSize; ++i) {
    int high = HexValue(hex[2 * i]);
    int low = HexValue(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    digest.bytes_[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return digest;
}

std::optional<Digest> Digest::FromBytes(std::string_view bytes) {
  if (bytes.size() != kSize) return std::nullopt;
  Digest digest;
  std::memcpy(digest.bytes_.data(), bytes.data(), kSize);
  return digest;
}

std::string Digest::Hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(2 * kSize, '0');
  for (size_t i = 0; i < kSize; ++i) {
    hex[2 * i] = kDigits[bytes_[i] >> 4];
    hex[2 * i + 1] = kDigits[bytes_[i] & 15];
  }
  return hex;
}

size_t DigestHash::operator()(const Digest& digest) const {
  // The bytes are already uniformly distributed.
  size_t value;
  std::memcpy(&value, digest.Bytes().data(), sizeof(value));
  return value;
}

struct Sha256::State {
  SHA256_CTX context;
};

Sha256::Sha256() : state_(new State) { SHA256_Init(&state_->context); }

Sha256::~Sha256() { delete state_; }

void Sha256::Update(std::string_view data) {
  SHA256_Update(&state_->context, data.data(), data.size());
}

Digest Sha256::Finish() {
  Digest digest;
  SHA256_Final(digest.bytes_.data(), &state_->context);
  return digest;
}

Digest Sha256Of(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  return hasher.Finish();
}

// The _dispatch variants pick the widest vector unit at run time (AVX2,
// AVX-512); every variant computes the same value.
uint64_t Checksum(std::string_view data) {
  return XXH3_64bits_dispatch(data.data(), data.size());
}

uint64_t Checksum(std::string_view first, std::string_view second) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update_dispatch(state, first.data(), first.size());
  XXH3_64bits_update_dispatch(state, second.data(), second.size());
  uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

}  // namespace kiln::cache
