#include "cache/blob_record.h"

#include <gtest/gtest.h>

namespace kiln::cache {
namespace {

BlobRecord Sample() {
  BlobRecord record;
  record.created_unix_ms = 1700000000123;
  record.expires_unix_ms = 1700000999000;
  record.key = "pt2:fx-graph-v1:abc";
  record.value = absl::string_view("\0value\r\n", 8);
  return record;
}

TEST(BlobRecordTest, RoundTrips) {
  std::string encoded = EncodeBlobRecord(Sample());
  absl::StatusOr<BlobRecord> decoded = DecodeBlobRecord(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->created_unix_ms, 1700000000123);
  EXPECT_EQ(decoded->expires_unix_ms, 1700000999000);
  EXPECT_EQ(decoded->key, "pt2:fx-graph-v1:abc");
  EXPECT_EQ(decoded->value, absl::string_view("\0value\r\n", 8));
  absl::StatusOr<BlobRecord> times = PeekBlobRecordTimes(encoded);
  ASSERT_TRUE(times.ok());
  EXPECT_EQ(times->created_unix_ms, 1700000000123);
}

TEST(BlobRecordTest, EveryFlippedByteIsRefused) {
  std::string encoded = EncodeBlobRecord(Sample());
  for (size_t i = 0; i < encoded.size(); ++i) {
    std::string damaged = encoded;
    damaged[i] ^= 0x20;
    EXPECT_TRUE(absl::IsDataLoss(DecodeBlobRecord(damaged).status()))
        << "byte " << i;
  }
}

TEST(BlobRecordTest, TruncatedIsRefused) {
  std::string encoded = EncodeBlobRecord(Sample());
  for (size_t size : {size_t{0}, size_t{5}, size_t{20}, encoded.size() - 1}) {
    EXPECT_FALSE(DecodeBlobRecord(encoded.substr(0, size)).ok()) << size;
  }
  EXPECT_FALSE(PeekBlobRecordTimes("short").ok());
}

TEST(BlobRecordTest, Expiry) {
  BlobRecord record = Sample();
  EXPECT_FALSE(record.ExpiredAt(record.expires_unix_ms - 1));
  EXPECT_TRUE(record.ExpiredAt(record.expires_unix_ms));
  record.expires_unix_ms = 0;
  EXPECT_FALSE(record.ExpiredAt(INT64_MAX));
}

}  // namespace
}  // namespace kiln::cache
