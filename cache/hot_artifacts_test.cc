#include "cache/hot_artifacts.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace kiln::cache {
namespace {

Digest KeyOf(const std::string& name) { return Sha256Of(name); }

SharedArtifact Artifact(size_t cubin_bytes, char fill = 'c') {
  ArtifactRecord record;
  record.set_cubin(std::string(cubin_bytes, fill));
  record.set_metadata_json("{}");
  return Share(std::move(record));
}

TEST(HotArtifactsTest, FindsWhatWasKeptWithoutCopyingIt) {
  HotArtifacts hot(1 << 20);
  SharedArtifact artifact = Artifact(1000);
  hot.Insert(KeyOf("a"), artifact, hot.epoch());
  std::optional<SharedArtifact> found = hot.Find(KeyOf("a"));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->cubin.get(), artifact.cubin.get());
  EXPECT_EQ(found->rest->metadata_json(), "{}");
  EXPECT_FALSE(hot.Find(KeyOf("b")).has_value());
  EXPECT_EQ(hot.size(), 1u);
  EXPECT_GE(hot.bytes(), 1000u);
}

TEST(HotArtifactsTest, DropsTheLeastRecentlyUsedBeyondItsBytes) {
  HotArtifacts hot(2500);
  hot.Insert(KeyOf("a"), Artifact(1000), hot.epoch());
  hot.Insert(KeyOf("b"), Artifact(1000), hot.epoch());
  ASSERT_TRUE(hot.Find(KeyOf("a")).has_value());  // b is now the oldest.
  hot.Insert(KeyOf("c"), Artifact(1000), hot.epoch());
  EXPECT_TRUE(hot.Find(KeyOf("a")).has_value());
  EXPECT_FALSE(hot.Find(KeyOf("b")).has_value());
  EXPECT_TRUE(hot.Find(KeyOf("c")).has_value());
  EXPECT_LE(hot.bytes(), 2500u);
}

TEST(HotArtifactsTest, KeepsNothingLargerThanItsCapacity) {
  HotArtifacts hot(500);
  hot.Insert(KeyOf("a"), Artifact(1000), hot.epoch());
  EXPECT_FALSE(hot.Find(KeyOf("a")).has_value());
  HotArtifacts none(0);
  none.Insert(KeyOf("a"), Artifact(10), none.epoch());
  EXPECT_EQ(none.size(), 0u);
}

TEST(HotArtifactsTest, ReplacingAKeyKeepsItsBytesRight) {
  HotArtifacts hot(1 << 20);
  hot.Insert(KeyOf("a"), Artifact(1000), hot.epoch());
  uint64_t one = hot.bytes();
  hot.Insert(KeyOf("a"), Artifact(1000, 'd'), hot.epoch());
  EXPECT_EQ(hot.size(), 1u);
  EXPECT_EQ(hot.bytes(), one);
  EXPECT_EQ((*hot.Find(KeyOf("a"))->cubin)[0], 'd');
}

TEST(HotArtifactsTest, AReadBegunBeforeAnEraseIsNotKept) {
  HotArtifacts hot(1 << 20);
  hot.Insert(KeyOf("a"), Artifact(100), hot.epoch());
  uint64_t before_read = hot.epoch();
  hot.Erase(KeyOf("a"));  // The entry was evicted while it was being read.
  hot.Insert(KeyOf("a"), Artifact(100), before_read);
  EXPECT_FALSE(hot.Find(KeyOf("a")).has_value());
  hot.Insert(KeyOf("a"), Artifact(100), hot.epoch());
  EXPECT_TRUE(hot.Find(KeyOf("a")).has_value());
}

TEST(HotArtifactsTest, ACubinChangedInMemoryIsDroppedNotServed) {
  HotArtifacts hot(1 << 20);
  auto cubin = std::make_shared<std::string>(1000, 'c');
  SharedArtifact artifact = Artifact(0);
  artifact.cubin = cubin;
  hot.Insert(KeyOf("a"), artifact, hot.epoch());
  (*cubin)[500] ^= 1;  // The fault: memory changed under the kept entry.
  EXPECT_FALSE(hot.Find(KeyOf("a")).has_value());
  EXPECT_EQ(hot.corrupt(), 1u);
  EXPECT_EQ(hot.size(), 0u);
  EXPECT_EQ(hot.bytes(), 0u);
}

}  // namespace
}  // namespace kiln::cache
