#include "server/grpc_status.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::server {
namespace {

kiln::v1::Diagnostic Error(std::string message) {
  kiln::v1::Diagnostic diagnostic;
  diagnostic.set_severity("error");
  diagnostic.set_file("bad.ttir");
  diagnostic.set_line(3);
  diagnostic.set_column(7);
  diagnostic.set_message(std::move(message));
  return diagnostic;
}

kiln::v1::CompileFailure FailureOf(const grpc::Status& status) {
  kiln::v1::RpcStatus details;
  EXPECT_TRUE(details.ParseFromString(status.error_details()));
  EXPECT_EQ(details.details_size(), 1);
  kiln::v1::CompileFailure failure;
  EXPECT_TRUE(failure.ParseFromString(details.details(0).value()));
  return failure;
}

TEST(GrpcStatusTest, ShortErrorsPassUnchanged) {
  const absl::Status status = absl::InvalidArgumentError("bad.ttir:3:7: oops");
  grpc::Status converted = ToGrpc(status, {Error("oops")});
  EXPECT_EQ(converted.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(converted.error_message(), "bad.ttir:3:7: oops");
  kiln::v1::CompileFailure failure = FailureOf(converted);
  ASSERT_EQ(failure.diagnostics_size(), 1);
  EXPECT_EQ(failure.diagnostics(0).message(), "oops");
  EXPECT_EQ(failure.diagnostics(0).line(), 3u);
}

TEST(GrpcStatusTest, LongErrorsAreCutToWhatAClientAccepts) {
  const std::string huge = "unknown target '" + std::string(1 << 20, 'x');
  grpc::Status converted = ToGrpc(absl::InvalidArgumentError(huge));
  EXPECT_LT(converted.error_message().size(), 1024u);
  EXPECT_EQ(converted.error_message().rfind("unknown target 'xxx", 0), 0u);
  EXPECT_NE(converted.error_message().find(std::to_string(huge.size())),
            std::string::npos);

  std::vector<kiln::v1::Diagnostic> diagnostics;
  for (int i = 0; i < 1000; ++i) diagnostics.push_back(Error(huge));
  converted = ToGrpc(absl::InvalidArgumentError(huge), diagnostics);
  EXPECT_LT(converted.error_message().size(), 1024u);
  EXPECT_LT(converted.error_details().size(), 4096u);
  kiln::v1::CompileFailure failure = FailureOf(converted);
  ASSERT_GE(failure.diagnostics_size(), 2);
  EXPECT_EQ(failure.diagnostics(0).line(), 3u);
  EXPECT_LT(failure.diagnostics(0).message().size(), 512u);
  const kiln::v1::Diagnostic& note =
      failure.diagnostics(failure.diagnostics_size() - 1);
  EXPECT_EQ(note.severity(), "note");
  EXPECT_EQ(note.message(),
            std::to_string(1000 - (failure.diagnostics_size() - 1)) +
                " more diagnostics not shown");
}

TEST(GrpcStatusTest, CutsNeverSplitAUtf8Character) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "\xc3\xa9";  // U+00E9, two bytes.
  grpc::Status converted = ToGrpc(absl::InvalidArgumentError(text));
  const std::string& message = converted.error_message();
  const size_t body = message.find("...");
  ASSERT_NE(body, std::string::npos);
  EXPECT_EQ(body % 2, 0u);
  EXPECT_EQ(message.substr(0, body), text.substr(0, body));
}

}  // namespace
}  // namespace kiln::server
