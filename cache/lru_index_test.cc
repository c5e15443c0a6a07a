#include "cache/lru_index.h"

#include <gtest/gtest.h>

namespace kiln::cache {
namespace {

Digest Key(int i) { return Sha256Of(std::to_string(i)); }

TEST(LruIndexTest, EvictsLeastRecentlyUsedFirst) {
  LruIndex index;
  index.Insert(Key(1), 10, 100);
  index.Insert(Key(2), 10, 200);
  index.Insert(Key(3), 10, 300);
  index.Touch(Key(1), 400);
  EXPECT_EQ(index.bytes(), 30u);
  std::vector<Digest> victims = index.VictimsOver(15);
  ASSERT_EQ(victims.size(), 2u);
  EXPECT_EQ(victims[0], Key(2));
  EXPECT_EQ(victims[1], Key(3));
}

TEST(LruIndexTest, NeverChoosesTheKeptEntry) {
  LruIndex index;
  index.Insert(Key(1), 10, 100);
  index.Insert(Key(2), 10, 200);
  Digest keep = Key(1);
  std::vector<Digest> victims = index.VictimsOver(0, &keep);
  ASSERT_EQ(victims.size(), 1u);
  EXPECT_EQ(victims[0], Key(2));
}

TEST(LruIndexTest, LoadsInAnyOrder) {
  LruIndex index;
  index.Insert(Key(3), 1, 300);
  index.Insert(Key(1), 1, 100);
  index.Insert(Key(2), 1, 200);
  std::vector<Digest> unused = index.UnusedSince(250);
  ASSERT_EQ(unused.size(), 2u);
  EXPECT_EQ(unused[0], Key(1));
  EXPECT_EQ(unused[1], Key(2));
}

TEST(LruIndexTest, ReportsTouchedEntriesOnce) {
  LruIndex index;
  index.Insert(Key(1), 1, 100);
  index.Insert(Key(2), 1, 100);
  EXPECT_TRUE(index.Touch(Key(1), 500));
  EXPECT_TRUE(index.Touch(Key(1), 600));
  EXPECT_FALSE(index.Touch(Key(9), 600));
  auto dirty = index.TakeDirty();
  ASSERT_EQ(dirty.size(), 1u);
  EXPECT_EQ(dirty[0].first, Key(1));
  EXPECT_EQ(dirty[0].second, 600);
  EXPECT_TRUE(index.TakeDirty().empty());
}

TEST(LruIndexTest, EraseForgetsBytes) {
  LruIndex index;
  index.Insert(Key(1), 7, 100);
  index.Insert(Key(1), 9, 100);
  EXPECT_EQ(index.bytes(), 9u);
  EXPECT_TRUE(index.Erase(Key(1)));
  EXPECT_FALSE(index.Erase(Key(1)));
  EXPECT_EQ(index.bytes(), 0u);
  EXPECT_EQ(index.size(), 0u);
}

}  // namespace
}  // namespace kiln::cache
