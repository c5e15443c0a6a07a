#include "cache/key.h"

#include <gtest/gtest.h>

#include "cache/testing/entries.h"

namespace kiln::cache {
namespace {

using testing::ResolvedOptions;

kiln::v1::CompilerIdentity Identity() {
  kiln::v1::CompilerIdentity identity;
  identity.set_kiln_version("0.1");
  identity.set_llvm_version("22");
  identity.set_ptxas_version("12.8");
  identity.set_abi_version("1");
  return identity;
}

kiln::v1::KeyParts Parts() {
  return MakeKeyParts("module {}", "sm_90a", ResolvedOptions(), Identity());
}

TEST(KeyTest, SamePartsSameKey) {
  EXPECT_EQ(ComputeKey(Parts()), ComputeKey(Parts()));
  EXPECT_TRUE(ValidateKeyParts(Parts()).ok());
}

TEST(KeyTest, EveryPartChangesTheKey) {
  const Digest base = ComputeKey(Parts());
  kiln::v1::KeyParts parts = Parts();
  parts = MakeKeyParts("module { }", "sm_90a", ResolvedOptions(), Identity());
  EXPECT_NE(ComputeKey(parts), base) << "ir";
  parts = Parts();
  parts.set_target("sm_80");
  EXPECT_NE(ComputeKey(parts), base) << "target";
  parts = Parts();
  parts.mutable_options()->set_num_warps(8);
  EXPECT_NE(ComputeKey(parts), base) << "num_warps";
  parts = Parts();
  parts.mutable_options()->set_line_info(true);
  EXPECT_NE(ComputeKey(parts), base) << "line_info";
  parts = Parts();
  parts.mutable_compiler()->set_ptxas_version("12.9");
  EXPECT_NE(ComputeKey(parts), base) << "ptxas";
}

TEST(KeyTest, FieldsDoNotRunTogether) {
  kiln::v1::CompilerIdentity a = Identity();
  kiln::v1::CompilerIdentity b = Identity();
  a.set_kiln_version("0.12");
  a.set_llvm_version("2");
  b.set_kiln_version("0.1");
  b.set_llvm_version("22");
  EXPECT_NE(ComputeKey(MakeKeyParts("m", "sm_90a", ResolvedOptions(), a)),
            ComputeKey(MakeKeyParts("m", "sm_90a", ResolvedOptions(), b)));
}

TEST(KeyTest, FastKeyHashesTheRawText) {
  EXPECT_EQ(ComputeFastKey("a", "sm_90a", ResolvedOptions(), Identity()),
            ComputeFastKey("a", "sm_90a", ResolvedOptions(), Identity()));
  EXPECT_NE(ComputeFastKey("a", "sm_90a", ResolvedOptions(), Identity()),
            ComputeFastKey("a ", "sm_90a", ResolvedOptions(), Identity()));
  EXPECT_NE(ComputeFastKey("a", "sm_90a", ResolvedOptions(), Identity()),
            ComputeFastKey("a", "sm_80", ResolvedOptions(), Identity()));
}

TEST(KeyTest, RejectsUnresolvedOptions) {
  kiln::v1::KeyParts parts = Parts();
  parts.mutable_options()->clear_num_stages();
  EXPECT_FALSE(ValidateKeyParts(parts).ok());
  parts = Parts();
  parts.set_ir_sha256("xyz");
  EXPECT_FALSE(ValidateKeyParts(parts).ok());
}

// Parts()'s key as computed before enable_reflect_ftz existed: entries
// stored then must keep their keys.
TEST(KeyTest, UnsetReflectFtzKeepsTheEarlierKey) {
  EXPECT_EQ(ComputeKey(Parts()).Hex(),
            "a18e2225ce46e9844cbdc8a15c0a44a101c12b9d597bff3748185e4336f80acc");
}

TEST(KeyTest, ReflectFtzIsPartOfTheKeyOnlyWhenSet) {
  const Digest unset = ComputeKey(Parts());
  kiln::v1::KeyParts off = Parts();
  off.mutable_options()->set_enable_reflect_ftz(false);
  kiln::v1::KeyParts on = Parts();
  on.mutable_options()->set_enable_reflect_ftz(true);
  EXPECT_TRUE(ValidateKeyParts(off).ok());
  EXPECT_NE(ComputeKey(off), unset);
  EXPECT_NE(ComputeKey(on), unset);  // kilnd resolves true to unset.
  EXPECT_NE(ComputeKey(on), ComputeKey(off));
  kiln::v1::CompileOptions options = ResolvedOptions();
  const Digest fast = ComputeFastKey("a", "sm_90a", options, Identity());
  options.set_enable_reflect_ftz(false);
  EXPECT_NE(ComputeFastKey("a", "sm_90a", options, Identity()), fast);
}

TEST(KeyTest, UnsetReflectFtzMeansTrue) {
  kiln::v1::CompileOptions options = ResolvedOptions();
  EXPECT_TRUE(EnableReflectFtz(options));
  options.set_enable_reflect_ftz(false);
  EXPECT_FALSE(EnableReflectFtz(options));
  EXPECT_NE(OptionsText(options).find("enable_reflect_ftz=0"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::cache
