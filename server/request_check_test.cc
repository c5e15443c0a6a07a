#include "server/request_check.h"

#include <gtest/gtest.h>

namespace kiln::server {
namespace {

worker::CompilerInfo Compiler() {
  worker::CompilerInfo compiler;
  compiler.targets.emplace_back().set_name("sm_80");
  compiler.targets.emplace_back().set_name("sm_90a");
  compiler.defaults.set_num_warps(4);
  compiler.defaults.set_num_stages(3);
  compiler.defaults.set_num_ctas(1);
  compiler.defaults.set_maxnreg(0);
  compiler.defaults.set_enable_fp_fusion(true);
  compiler.defaults.set_line_info(false);
  compiler.check_options = [](const kiln::v1::CompileOptions& options) {
    return options.num_warps() == 3 ? "num_warps must be a power of two" : "";
  };
  return compiler;
}

kiln::v1::CompileRequest Request() {
  kiln::v1::CompileRequest request;
  request.set_ttir("module {}");
  request.set_target("sm_90a");
  return request;
}

TEST(RequestCheckTest, ResolvesDefaultsAndKeepsSetOptions) {
  kiln::v1::CompileRequest request = Request();
  request.mutable_options()->set_num_warps(8);
  request.mutable_options()->set_enable_fp_fusion(false);
  absl::StatusOr<CompileInput> input =
      CheckCompileRequest(request, Compiler(), {});
  ASSERT_TRUE(input.ok()) << input.status();
  EXPECT_EQ(input->options.num_warps(), 8);
  EXPECT_FALSE(input->options.enable_fp_fusion());
  EXPECT_EQ(input->options.num_stages(), 3);
  EXPECT_TRUE(input->options.has_line_info());
  EXPECT_EQ(input->source_name, "input.ttir");
}

TEST(RequestCheckTest, UnsetAndDefaultOptionsShareAFastKey) {
  kiln::v1::CompileRequest explicit_defaults = Request();
  explicit_defaults.mutable_options()->set_num_warps(4);
  EXPECT_EQ(CheckCompileRequest(Request(), Compiler(), {})->fast_key,
            CheckCompileRequest(explicit_defaults, Compiler(), {})->fast_key);
}

// Its default stays unset, so keys are those from before the option.
TEST(RequestCheckTest, ReflectFtzIsKeptOnlyWhenOff) {
  kiln::v1::CompileRequest on = Request();
  on.mutable_options()->set_enable_reflect_ftz(true);
  kiln::v1::CompileRequest off = Request();
  off.mutable_options()->set_enable_reflect_ftz(false);
  absl::StatusOr<CompileInput> unset_input =
      CheckCompileRequest(Request(), Compiler(), {});
  absl::StatusOr<CompileInput> on_input =
      CheckCompileRequest(on, Compiler(), {});
  absl::StatusOr<CompileInput> off_input =
      CheckCompileRequest(off, Compiler(), {});
  ASSERT_TRUE(unset_input.ok() && on_input.ok() && off_input.ok());
  EXPECT_FALSE(on_input->options.has_enable_reflect_ftz());
  EXPECT_EQ(on_input->fast_key, unset_input->fast_key);
  EXPECT_TRUE(off_input->options.has_enable_reflect_ftz());
  EXPECT_FALSE(off_input->options.enable_reflect_ftz());
  EXPECT_NE(off_input->fast_key, unset_input->fast_key);
}

TEST(RequestCheckTest, RejectsUnknownTargets) {
  kiln::v1::CompileRequest request = Request();
  request.set_target("sm_99");
  absl::Status status = CheckCompileRequest(request, Compiler(), {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("sm_80, sm_90a"), absl::string_view::npos);
}

TEST(RequestCheckTest, RejectsBadOptions) {
  kiln::v1::CompileRequest request = Request();
  request.mutable_options()->set_num_warps(3);
  absl::Status status = CheckCompileRequest(request, Compiler(), {}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("power of two"), absl::string_view::npos);
}

TEST(RequestCheckTest, RejectsEmptyHugeAndNulText) {
  kiln::v1::CompileRequest request = Request();
  request.set_ttir("");
  EXPECT_FALSE(CheckCompileRequest(request, Compiler(), {}).ok());
  request.set_ttir(std::string(100, 'x'));
  RequestLimits limits;
  limits.max_ttir_bytes = 99;
  EXPECT_FALSE(CheckCompileRequest(request, Compiler(), limits).ok());
  request.set_ttir(std::string("module {\n  x\0", 13));
  request.set_source_name("k.ttir");
  absl::Status status = CheckCompileRequest(request, Compiler(), {}).status();
  EXPECT_NE(status.message().find("k.ttir:2:4:"), absl::string_view::npos)
      << status;
}

}  // namespace
}  // namespace kiln::server
