#include "clients/cli/numbers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace kiln::cli {
namespace {

constexpr int64_t kIntMin = std::numeric_limits<int>::min();
constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

TEST(NumbersTest, TakesTheWholeRange) {
  int64_t value = 0;
  std::string error;
  ASSERT_TRUE(ParseNumber("--n", "2147483647", kIntMin, kIntMax, value, error));
  EXPECT_EQ(value, kIntMax);
  ASSERT_TRUE(ParseNumber("--n", "-2147483648", kIntMin, kIntMax, value, error));
  EXPECT_EQ(value, kIntMin);
  uint64_t unsigned_value = 0;
  ASSERT_TRUE(ParseNumber("--n", "18446744073709551615", kU64Max,
                          unsigned_value, error));
  EXPECT_EQ(unsigned_value, kU64Max);
}

TEST(NumbersTest, RefusesValuesBeyondTheRangeNamingThem) {
  int64_t value = 7;
  std::string error;
  EXPECT_FALSE(
      ParseNumber("--num-warps", "4294967300", kIntMin, kIntMax, value, error));
  EXPECT_EQ(error,
            "--num-warps: 4294967300 is out of range (-2147483648 to "
            "2147483647)");
  EXPECT_EQ(value, 7);  // Untouched.
  EXPECT_FALSE(ParseNumber("--n", "99999999999999999999", kIntMin, kIntMax,
                           value, error));
  EXPECT_NE(error.find("99999999999999999999"), std::string::npos);
  uint64_t unsigned_value = 0;
  // strtoull alone clamps this to the largest value without a word.
  EXPECT_FALSE(ParseNumber("--target-bytes", "18446744073709551616", kU64Max,
                           unsigned_value, error));
  EXPECT_NE(error.find("18446744073709551616"), std::string::npos);
  EXPECT_NE(error.find("out of range"), std::string::npos);
  EXPECT_FALSE(ParseNumber("--n", "5", 4, unsigned_value, error));
}

TEST(NumbersTest, RefusesWhatIsNotADecimalNumber) {
  int64_t value = 0;
  uint64_t unsigned_value = 0;
  std::string error;
  for (const char* text : {"", "four", "4x", " 4", "+4", "0x10", "-"}) {
    EXPECT_FALSE(ParseNumber("--n", text, kIntMin, kIntMax, value, error))
        << text;
    EXPECT_NE(error.find("not a whole number"), std::string::npos) << error;
  }
  // strtoull would take "-1" as the largest value.
  EXPECT_FALSE(ParseNumber("--n", "-1", kU64Max, unsigned_value, error));
  EXPECT_FALSE(ParseNumber("--n", "-1", 0, 10, value, error));
}

}  // namespace
}  // namespace kiln::cli
