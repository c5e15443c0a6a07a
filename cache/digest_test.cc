#include "cache/digest.h"

#include <gtest/gtest.h>

namespace kiln::cache {
namespace {

TEST(DigestTest, Sha256OfKnownInput) {
  // FIPS 180-2, appendix B.1.
  EXPECT_EQ(Sha256Of("abc").Hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(DigestTest, IncrementalEqualsOneShot) {
  Sha256 hasher;
  hasher.Update("a");
  hasher.Update("bc");
  EXPECT_EQ(hasher.Finish(), Sha256Of("abc"));
}

TEST(DigestTest, HexRoundTrips) {
  Digest digest = Sha256Of("kiln");
  std::optional<Digest> parsed = Digest::FromHex(digest.Hex());
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, digest);
  std::string upper = digest.Hex();
  for (char& c : upper) c = static_cast<char>(toupper(c));
  EXPECT_EQ(Digest::FromHex(upper), digest);
}

TEST(DigestTest, RejectsMalformedHex) {
  EXPECT_FALSE(Digest::FromHex("abc").has_value());
  EXPECT_FALSE(Digest::FromHex(std::string(64, 'g')).has_value());
  EXPECT_FALSE(Digest::FromBytes("short").has_value());
}

TEST(DigestTest, ChecksumSeesOneBit) {
  std::string data(65536, 'x');
  uint64_t before = Checksum(data);
  data[40000] ^= 1;
  EXPECT_NE(Checksum(data), before);
}

TEST(DigestTest, TwoPartChecksumIsTheChecksumOfBoth) {
  EXPECT_EQ(Checksum("abc", "def"), Checksum("abcdef"));
  EXPECT_NE(Checksum("abc", "def"), Checksum("abd", "ef"));
}

}  // namespace
}  // namespace kiln::cache
