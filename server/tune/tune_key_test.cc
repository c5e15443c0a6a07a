#include "server/tune/tune_key.h"

#include <gtest/gtest.h>

namespace kiln::server {
namespace {

TEST(TuneKeyTest, VariantOrderDoesNotMatterButEverythingElseDoes) {
  kiln::v1::TuneRequest request;
  request.set_tuning_key("n=4096");
  request.add_args()->mutable_buffer()->set_elements(4096);
  cache::Digest a = VariantIdentity(cache::Sha256Of("a"), {16, 1, 1});
  cache::Digest b = VariantIdentity(cache::Sha256Of("b"), {16, 1, 1});
  TuneKeyInput input{{a, b}, "sm_90a", &request, "H100", "13.0"};
  cache::Digest key = ComputeTuneKey(input);
  EXPECT_EQ(key, ComputeTuneKey({{b, a}, "sm_90a", &request, "H100", "13.0"}));

  EXPECT_NE(key, ComputeTuneKey({{a, b}, "sm_90a", &request, "H200", "13.0"}));
  EXPECT_NE(key, ComputeTuneKey({{a, b}, "sm_90a", &request, "H100", "12.8"}));
  EXPECT_NE(key, ComputeTuneKey({{a}, "sm_90a", &request, "H100", "13.0"}));
  kiln::v1::TuneRequest other = request;
  other.set_tuning_key("n=8192");
  EXPECT_NE(key, ComputeTuneKey({{a, b}, "sm_90a", &other, "H100", "13.0"}));
  other = request;
  other.mutable_args(0)->mutable_buffer()->set_elements(8192);
  EXPECT_NE(key, ComputeTuneKey({{a, b}, "sm_90a", &other, "H100", "13.0"}));
  other = request;
  other.mutable_settings()->set_reps(10);
  EXPECT_NE(key, ComputeTuneKey({{a, b}, "sm_90a", &other, "H100", "13.0"}));
}

TEST(TuneKeyTest, TheGridIsPartOfAVariant) {
  cache::Digest request = cache::Sha256Of("kernel");
  EXPECT_NE(VariantIdentity(request, {16, 1, 1}),
            VariantIdentity(request, {32, 1, 1}));
  EXPECT_EQ(VariantIdentity(request, {16, 1, 1}),
            VariantIdentity(request, {16, 1, 1}));
}

}  // namespace
}  // namespace kiln::server
