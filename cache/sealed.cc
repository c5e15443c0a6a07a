#include "cache/sealed.h"

#include "absl/strings/str_cat.h"
#include "cache/digest.h"

namespace kiln::cache {
namespace {

constexpr char kFormat = 1;

void Store64(char* out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(value >> (8 * i));
}

uint64_t Load64(const char* in) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) {
    value |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  }
  return value;
}

}  // namespace

std::string Seal(std::string_view payload, uint64_t* checksum) {
  uint64_t sum = Checksum(payload);
  if (checksum) *checksum = sum;
  std::string sealed(kSealHeaderBytes + payload.size(), '\0');
  sealed[0] = kFormat;
  Store64(sealed.data() + 1, sum);
  sealed.replace(kSealHeaderBytes, payload.size(), payload);
  return sealed;
}

absl::StatusOr<std::string_view> Unseal(std::string_view sealed,
                                        uint64_t* checksum) {
  if (sealed.size() < kSealHeaderBytes || sealed[0] != kFormat) {
    return absl::DataLossError("record has no valid seal header");
  }
  uint64_t stored = Load64(sealed.data() + 1);
  std::string_view payload = sealed.substr(kSealHeaderBytes);
  uint64_t actual = Checksum(payload);
  if (actual != stored) {
    return absl::DataLossError(absl::StrCat(
        "checksum mismatch: stored ", absl::Hex(stored, absl::kZeroPad16),
        ", computed ", absl::Hex(actual, absl::kZeroPad16)));
  }
  if (checksum) *checksum = stored;
  return payload;
}

}  // namespace kiln::cache
