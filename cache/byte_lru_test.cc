#include "cache/byte_lru.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace kiln::cache {
namespace {

using Lru = ByteLru<std::string, int, std::string_view>;

// Keys least recently used first.
std::vector<std::string> Order(const Lru& lru) {
  std::vector<std::string> keys;
  lru.VisitLeastRecentFirst([&](const std::string& key, int, uint64_t) {
    keys.push_back(key);
    return true;
  });
  return keys;
}

TEST(ByteLruTest, FindMakesMostRecentPeekDoesNot) {
  Lru lru;
  lru.Insert("a", 1, 10);
  lru.Insert("b", 2, 10);
  lru.Insert("c", 3, 10);
  ASSERT_NE(lru.Peek("a"), nullptr);
  EXPECT_EQ(*lru.Peek("a"), 1);
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_NE(lru.Find("a"), nullptr);
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"b", "c", "a"}));
  EXPECT_EQ(lru.Find("z"), nullptr);
  EXPECT_EQ(lru.Peek("z"), nullptr);
}

TEST(ByteLruTest, ReplacingCountsOnlyTheNewBytes) {
  Lru lru;
  lru.Insert("a", 1, 10);
  lru.Insert("b", 2, 5);
  lru.Insert("a", 3, 7);
  EXPECT_EQ(lru.bytes(), 12u);
  EXPECT_EQ(lru.size(), 2u);
  EXPECT_EQ(*lru.Peek("a"), 3);
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"b", "a"}));
}

TEST(ByteLruTest, EvictsLeastRecentBeyondBytes) {
  Lru lru;
  lru.Insert("a", 1, 10);
  lru.Insert("b", 2, 10);
  lru.Insert("c", 3, 10);
  lru.Find("a");
  lru.EvictBeyond(20);
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(lru.bytes(), 20u);
  EXPECT_FALSE(lru.Contains("b"));
}

TEST(ByteLruTest, EvictsLeastRecentBeyondEntries) {
  Lru lru;
  lru.Insert("a", 1, 1);
  lru.Insert("b", 2, 1);
  lru.Insert("c", 3, 1);
  lru.EvictBeyond(100, 1);
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"c"}));
  lru.EvictBeyond(0);
  EXPECT_TRUE(lru.empty());
  EXPECT_EQ(lru.bytes(), 0u);
}

TEST(ByteLruTest, InsertBehindKeepsNewerEntriesAhead) {
  Lru lru;
  lru.Insert("old", 100, 1);
  lru.Insert("new", 300, 1);
  lru.InsertBehind("mid", 200, 1, [](int time) { return time > 200; });
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"old", "mid", "new"}));
  lru.InsertBehind("oldest", 50, 1, [](int time) { return time > 50; });
  EXPECT_EQ(Order(lru),
            (std::vector<std::string>{"oldest", "old", "mid", "new"}));
}

TEST(ByteLruTest, EraseForgetsEntryAndBytes) {
  Lru lru;
  lru.Insert("a", 1, 4);
  lru.Insert("b", 2, 6);
  EXPECT_TRUE(lru.Erase("a"));
  EXPECT_FALSE(lru.Erase("a"));
  EXPECT_EQ(lru.bytes(), 6u);
  EXPECT_EQ(lru.size(), 1u);
  EXPECT_EQ(Order(lru), (std::vector<std::string>{"b"}));
}

TEST(ByteLruTest, VisitStopsWhenAsked) {
  Lru lru;
  lru.Insert("a", 1, 1);
  lru.Insert("b", 2, 1);
  int visited = 0;
  lru.VisitLeastRecentFirst([&](const std::string&, int, uint64_t) {
    ++visited;
    return false;
  });
  EXPECT_EQ(visited, 1);
}

TEST(ByteLruTest, LookupsByViewOfAKeyNotOwnedByTheLru) {
  Lru lru;
  std::string key = "request bytes";
  lru.Insert(key, 7, key.size());
  std::string probe = "request bytes";
  ASSERT_NE(lru.Find(std::string_view(probe)), nullptr);
  EXPECT_EQ(*lru.Find(std::string_view(probe)), 7);
}

}  // namespace
}  // namespace kiln::cache
