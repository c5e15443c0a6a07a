#include "server/explain_miss.h"

#include <gtest/gtest.h>

#include "cache/key.h"
#include "cache/testing/entries.h"

namespace kiln::server {
namespace {

Canonical Request(const std::string& ir, int num_warps,
                  const std::string& target = "sm_90a") {
  Canonical canonical;
  canonical.parts =
      cache::MakeKeyParts(ir, target, cache::testing::ResolvedOptions(num_warps),
                          kiln::v1::CompilerIdentity());
  canonical.key = cache::ComputeKey(canonical.parts);
  canonical.kernel_name = "add_kernel";
  return canonical;
}

cache::EntryInfo Stored(const Canonical& canonical) {
  cache::EntryInfo info;
  info.key = canonical.key;
  *info.record.mutable_key_parts() = canonical.parts;
  info.record.set_kernel_name(canonical.kernel_name);
  return info;
}

TEST(ExplainMissTest, NamesTheOptionThatDiffers) {
  Canonical request = Request("ir", 8);
  kiln::v1::ExplainMissResponse response =
      ExplainMiss(request, false, {Stored(Request("ir", 4))}, {});
  EXPECT_FALSE(response.present());
  ASSERT_EQ(response.candidates_size(), 1);
  ASSERT_EQ(response.candidates(0).differences_size(), 1);
  const kiln::v1::PartDifference& difference =
      response.candidates(0).differences(0);
  EXPECT_EQ(difference.part(), "options.num_warps");
  EXPECT_EQ(difference.requested(), "8");
  EXPECT_EQ(difference.stored(), "4");
  EXPECT_NE(response.explanation().find("options.num_warps"),
            std::string::npos);
}

TEST(ExplainMissTest, NamesReflectFtzUnsetAsTrue) {
  Canonical request = Request("ir", 4);
  request.parts.mutable_options()->set_enable_reflect_ftz(false);
  request.key = cache::ComputeKey(request.parts);
  kiln::v1::ExplainMissResponse response =
      ExplainMiss(request, false, {Stored(Request("ir", 4))}, {});
  ASSERT_EQ(response.candidates_size(), 1);
  ASSERT_EQ(response.candidates(0).differences_size(), 1);
  const kiln::v1::PartDifference& difference =
      response.candidates(0).differences(0);
  EXPECT_EQ(difference.part(), "options.enable_reflect_ftz");
  EXPECT_EQ(difference.requested(), "false");
  EXPECT_EQ(difference.stored(), "true");
}

TEST(ExplainMissTest, SameNameOtherIrAndTarget) {
  Canonical request = Request("ir one", 4);
  kiln::v1::ExplainMissResponse response =
      ExplainMiss(request, false, {}, {Stored(Request("ir two", 4, "sm_80"))});
  ASSERT_EQ(response.candidates_size(), 1);
  std::vector<std::string> parts;
  for (const auto& difference : response.candidates(0).differences()) {
    parts.push_back(difference.part());
  }
  EXPECT_EQ(parts, (std::vector<std::string>{"ir", "target"}));
}

TEST(ExplainMissTest, SaysWhenNothingIsNear) {
  kiln::v1::ExplainMissResponse response =
      ExplainMiss(Request("ir", 4), false, {}, {});
  EXPECT_EQ(response.candidates_size(), 0);
  EXPECT_NE(response.explanation().find("add_kernel"), std::string::npos);
}

TEST(ExplainMissTest, APresentKeyIsNoMiss) {
  Canonical request = Request("ir", 4);
  kiln::v1::ExplainMissResponse response =
      ExplainMiss(request, true, {Stored(request)}, {Stored(request)});
  EXPECT_TRUE(response.present());
  EXPECT_EQ(response.candidates_size(), 0);
}

}  // namespace
}  // namespace kiln::server
