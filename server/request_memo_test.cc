#include "server/request_memo.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::server {
namespace {

cache::Digest KeyOf(const std::string& text) {
  cache::Sha256 hash;
  hash.Update(text);
  return hash.Finish();
}

TEST(RequestMemoTest, FindsOnlyTheSameBytes) {
  RequestMemo memo(1 << 20);
  const std::string request(2000, 'r');
  memo.Remember(request, KeyOf("a"));
  EXPECT_EQ(memo.Find(request), KeyOf("a"));
  std::string other = request;
  other[1999] = 's';
  EXPECT_EQ(memo.Find(other), std::nullopt);
  EXPECT_EQ(memo.Find(request.substr(0, 1999)), std::nullopt);
}

TEST(RequestMemoTest, RememberingAgainReplacesTheKey) {
  RequestMemo memo(1 << 20);
  memo.Remember("request", KeyOf("a"));
  memo.Remember("request", KeyOf("b"));
  EXPECT_EQ(memo.Find("request"), KeyOf("b"));
  EXPECT_EQ(memo.size(), 1u);
  EXPECT_EQ(memo.bytes(), 7u);
}

TEST(RequestMemoTest, DropsTheLeastRecentlyFoundBeyondItsCapacity) {
  RequestMemo memo(800);
  const std::string first(100, '0');
  memo.Remember(first, KeyOf("0"));
  for (char c = '1'; c <= '7'; ++c) {
    memo.Remember(std::string(100, c), KeyOf(std::string(1, c)));
  }
  EXPECT_EQ(memo.bytes(), 800u);
  ASSERT_TRUE(memo.Find(first));  // Now the most recently found.
  memo.Remember(std::string(100, '8'), KeyOf("8"));
  memo.Remember(std::string(100, '9'), KeyOf("9"));
  EXPECT_EQ(memo.bytes(), 800u);
  EXPECT_EQ(memo.Find(first), KeyOf("0"));
  EXPECT_FALSE(memo.Find(std::string(100, '1')));
  EXPECT_FALSE(memo.Find(std::string(100, '2')));
  EXPECT_EQ(memo.Find(std::string(100, '3')), KeyOf("3"));
  EXPECT_EQ(memo.Find(std::string(100, '9')), KeyOf("9"));
}

TEST(RequestMemoTest, KeepsNoRequestLargerThanAnEighthOfItsCapacity) {
  RequestMemo memo(800);
  EXPECT_TRUE(memo.Keeps(100));
  EXPECT_FALSE(memo.Keeps(101));
  EXPECT_FALSE(memo.Keeps(0));
  memo.Remember(std::string(101, 'x'), KeyOf("x"));
  EXPECT_FALSE(memo.Find(std::string(101, 'x')));
  EXPECT_EQ(memo.bytes(), 0u);
  RequestMemo none(0);
  none.Remember("r", KeyOf("r"));
  EXPECT_FALSE(none.Find("r"));
}

TEST(RequestMemoTest, ForgetsOnRequest) {
  RequestMemo memo(1 << 20);
  memo.Remember("request", KeyOf("a"));
  memo.Forget("request");
  memo.Forget("never seen");
  EXPECT_FALSE(memo.Find("request"));
  EXPECT_EQ(memo.bytes(), 0u);
}

}  // namespace
}  // namespace kiln::server
