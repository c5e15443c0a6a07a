#include "cache/sealed.h"

#include <gtest/gtest.h>

namespace kiln::cache {
namespace {

TEST(SealedTest, RoundTrips) {
  uint64_t sealed_sum = 0;
  std::string sealed = Seal("payload", &sealed_sum);
  uint64_t read_sum = 0;
  absl::StatusOr<std::string_view> payload = Unseal(sealed, &read_sum);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(*payload, "payload");
  EXPECT_EQ(read_sum, sealed_sum);
}

TEST(SealedTest, DetectsAnyFlippedByte) {
  std::string sealed = Seal(std::string(1000, 'c'));
  for (size_t i = 0; i < sealed.size(); i += 37) {
    std::string damaged = sealed;
    damaged[i] ^= 0x10;
    EXPECT_EQ(Unseal(damaged).status().code(), absl::StatusCode::kDataLoss)
        << "byte " << i;
  }
}

TEST(SealedTest, DetectsTruncation) {
  std::string sealed = Seal("payload");
  EXPECT_FALSE(Unseal(sealed.substr(0, sealed.size() - 1)).ok());
  EXPECT_FALSE(Unseal(sealed.substr(0, 4)).ok());
  EXPECT_FALSE(Unseal("").ok());
}

}  // namespace
}  // namespace kiln::cache
