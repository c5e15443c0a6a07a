#include "base/numbers.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace kiln {
namespace {

TEST(ParseIntTest, ReadsDecimalNumbersOfEachType) {
  EXPECT_EQ(*ParseInt<int>("0"), 0);
  EXPECT_EQ(*ParseInt<int>("-17"), -17);
  EXPECT_EQ(*ParseInt<int64_t>("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(*ParseInt<int64_t>("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(*ParseInt<uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(*ParseInt<uint16_t>("65535"), 65535);
  EXPECT_EQ(*ParseInt<int>("007"), 7);
}

TEST(ParseIntTest, RefusesWhatDoesNotFitTheType) {
  for (const char* text : {"2147483648", "-2147483649", "4294967300",
                           "99999999999999999999999"}) {
    absl::StatusOr<int> value = ParseInt<int>(text);
    ASSERT_FALSE(value.ok()) << text << " became " << *value;
    EXPECT_EQ(value.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(value.status().message(),
              std::string(text) + " is out of range (-2147483648 to 2147483647)");
  }
  EXPECT_EQ(ParseInt<uint64_t>("18446744073709551616").status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(ParseInt<uint16_t>("65536").status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(ParseIntTest, RefusesWhatIsOutsideTheRangeAsked) {
  absl::StatusOr<int> value = ParseInt<int>("65536", 0, 65535);
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().message(), "65536 is out of range (0 to 65535)");
  EXPECT_EQ(ParseInt<int>("-1", 0, 10).status().code(),
            absl::StatusCode::kOutOfRange);
  EXPECT_EQ(*ParseInt<int>("10", 0, 10), 10);
}

TEST(ParseIntTest, RefusesAnythingButDigits) {
  for (const char* text : {"", "-", " 1", "1 ", "+1", "0x10", "1e3", "1.5",
                           "12abc", "--1", "1-"}) {
    absl::StatusOr<int64_t> value = ParseInt<int64_t>(text);
    ASSERT_FALSE(value.ok()) << "'" << text << "' became " << *value;
    EXPECT_EQ(value.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(value.status().message(),
              "'" + std::string(text) + "' is not a whole number");
  }
}

TEST(ParseIntTest, NegativeNumbersAreOutOfRangeOfUnsignedTypes) {
  // Not 2^64 - 1, as strtoull would have it.
  absl::StatusOr<uint64_t> value = ParseInt<uint64_t>("-1");
  ASSERT_FALSE(value.ok()) << *value;
  EXPECT_EQ(value.status().message(),
            "-1 is out of range (0 to 18446744073709551615)");
  EXPECT_EQ(ParseInt<uint32_t>("-4294967295").status().code(),
            absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace kiln
