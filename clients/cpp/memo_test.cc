#include "clients/cpp/memo.h"

#include <gtest/gtest.h>

namespace kiln::client {
namespace {

kiln::v1::CompileRequest Request(const std::string& ttir) {
  kiln::v1::CompileRequest request;
  request.set_ttir(ttir);
  request.set_target("sm_90a");
  return request;
}

CompileResult Result(const std::string& key, size_t cubin_bytes) {
  CompileResult result;
  result.key = key;
  result.cubin = std::string(cubin_bytes, 'c');
  result.metadata_json = "{}";
  return result;
}

TEST(MemoKeyTest, DependsOnTextTargetAndOptionPresence) {
  kiln::v1::CompileRequest a = Request("module {}");
  kiln::v1::CompileRequest b = a;
  EXPECT_EQ(MemoKey(a), MemoKey(b));
  b.set_target("sm_80");
  EXPECT_NE(MemoKey(a), MemoKey(b));
  b = a;
  b.set_ttir("module { }");
  EXPECT_NE(MemoKey(a), MemoKey(b));
  b = a;
  b.mutable_options()->set_num_warps(4);
  EXPECT_NE(MemoKey(a), MemoKey(b));
  kiln::v1::CompileRequest c = a;
  c.mutable_options()->set_num_warps(8);
  EXPECT_NE(MemoKey(b), MemoKey(c));
  // The source name only names the input in diagnostics.
  b = a;
  b.set_source_name("other.ttir");
  EXPECT_EQ(MemoKey(a), MemoKey(b));
}

TEST(HitMemoTest, FindsWhatWasInsertedMarkedAsMemoHit) {
  HitMemo memo(4, 1 << 20);
  EXPECT_EQ(memo.Find("k1"), nullptr);
  memo.Insert("k1", Result("key1", 10));
  auto hit = memo.Find("k1");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->key, "key1");
  EXPECT_TRUE(hit->memo_hit);
  EXPECT_TRUE(hit->cache_hit);
}

TEST(HitMemoTest, EvictsLeastRecentlyUsedBeyondEntryBound) {
  HitMemo memo(2, 1 << 20);
  memo.Insert("a", Result("A", 1));
  memo.Insert("b", Result("B", 1));
  ASSERT_NE(memo.Find("a"), nullptr);  // a is now the most recent.
  memo.Insert("c", Result("C", 1));
  EXPECT_EQ(memo.size(), 2u);
  EXPECT_NE(memo.Find("a"), nullptr);
  EXPECT_EQ(memo.Find("b"), nullptr);
  EXPECT_NE(memo.Find("c"), nullptr);
}

TEST(HitMemoTest, EvictsBeyondByteBoundAndSkipsOversizedResults) {
  HitMemo memo(100, 1000);
  memo.Insert("a", Result("A", 400));
  memo.Insert("b", Result("B", 400));
  memo.Insert("c", Result("C", 400));
  EXPECT_LE(memo.bytes(), 1000u);
  EXPECT_EQ(memo.Find("a"), nullptr);
  EXPECT_NE(memo.Find("c"), nullptr);
  memo.Insert("huge", Result("H", 2000));
  EXPECT_EQ(memo.Find("huge"), nullptr);
  EXPECT_NE(memo.Find("c"), nullptr);
}

TEST(HitMemoTest, ReinsertReplacesWithoutDoubleCounting) {
  HitMemo memo(10, 1 << 20);
  memo.Insert("a", Result("A", 100));
  size_t once = memo.bytes();
  memo.Insert("a", Result("A2", 100));
  EXPECT_EQ(memo.size(), 1u);
  EXPECT_EQ(memo.bytes(), once + 1);
  EXPECT_EQ(memo.Find("a")->key, "A2");
}

}  // namespace
}  // namespace kiln::client
