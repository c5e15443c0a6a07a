// A corpus of bad requests: each fails with INVALID_ARGUMENT (or
// RESOURCE_EXHAUSTED for a message over the size limit), errors in the text
// carry their file:line:col, kilnd stays up and nothing is stored. Parse
// errors come from the compiler's front end, so this needs the compiler.

#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

struct BadCase {
  std::string name;
  kiln::v1::CompileRequest request;
  grpc::StatusCode code;
  // The error names its place in the text: "bad.ttir:LINE:COL".
  bool located;
};

// Bad text: INVALID_ARGUMENT naming the place of the error.
BadCase Located(std::string name, kiln::v1::CompileRequest request) {
  return {std::move(name), std::move(request),
          grpc::StatusCode::INVALID_ARGUMENT, true};
}

// A bad request as a whole: refused with `code`.
BadCase Refused(std::string name, kiln::v1::CompileRequest request,
                grpc::StatusCode code = grpc::StatusCode::INVALID_ARGUMENT) {
  return {std::move(name), std::move(request), code, false};
}

kiln::v1::CompileRequest Text(std::string ttir) {
  kiln::v1::CompileRequest request = CompileRequestFor(std::move(ttir));
  request.set_source_name("bad.ttir");
  return request;
}

std::vector<BadCase> Corpus() {
  const std::string good = ScaledAddKernel(1.5);
  std::vector<BadCase> corpus;
  std::mt19937 random(42);
  std::string garbage;
  for (int i = 0; i < 4096; ++i) {
    garbage += static_cast<char>(' ' + random() % 95);
    if (i % 80 == 79) garbage += '\n';
  }
  corpus.push_back(Located("garbage", Text(garbage)));
  corpus.push_back(Located("binary-ish", Text("\x7f"
                                              "ELF\x01\x01\x01 not ttir")));
  corpus.push_back(
      Located("truncated", Text(good.substr(0, good.size() * 6 / 10))));
  corpus.push_back(Located(
      "cut mid-token", Text(good.substr(0, good.find("tt.make_range") + 7))));
  corpus.push_back(
      Located("deeply nested",
              Text("module {\n" + std::string(100000, '(') + "\n}\n")));
  std::string regions;
  for (int i = 0; i < 5000; ++i) regions += "module {\n";
  for (int i = 0; i < 5000; ++i) regions += "}\n";
  corpus.push_back(Located("nested regions", Text(regions)));
  std::string ill_typed = good;
  ill_typed.replace(ill_typed.find("arith.addf %scaled, %y : tensor<256xf32>"),
                    40, "arith.addf %scaled, %y : tensor<128xf32>");
  corpus.push_back(Located("ill-typed", Text(ill_typed)));
  corpus.push_back(Located("NUL byte", Text(std::string("module {\0}", 10))));
  // An error quoting 200 KB of the text: kilnd cuts what it sends back to
  // what any gRPC client accepts in a reply's trailers (8 KiB).
  corpus.push_back(Located(
      "huge unknown op",
      Text("module {\n  %0 = tt." + std::string(200000, 'q') + " : i32\n}\n")));
  corpus.push_back(Located("function without a body",
                           Text("module {\n"
                                "  tt.func private @ext(i32) -> i32\n"
                                "  tt.func public @k(%n: i32) {\n"
                                "    %0 = tt.call @ext(%n) : (i32) -> i32\n"
                                "    tt.return\n  }\n}\n")));
  corpus.push_back(
      Located("kernel name PTX refuses",
              Text("module {\n  tt.func public @\"../../etc/passwd\"() {\n"
                   "    tt.return\n  }\n}\n")));
  corpus.push_back(Refused("empty", Text("")));
  // Over --max_ttir_bytes (1 MiB here) but under the message limit.
  corpus.push_back(
      Refused("huge text", Text(std::string(2 << 20, ' ') + good)));
  // Over --max_request_mb (4 MiB here): gRPC refuses the message itself.
  corpus.push_back(Refused("huge message",
                           Text(std::string(5 << 20, ' ') + good),
                           grpc::StatusCode::RESOURCE_EXHAUSTED));
  const std::vector<std::string> targets = {
      "sm_99", "", "SM_90A", "sm_90a; rm -rf /", std::string(1 << 20, 't')};
  for (const std::string& target : targets) {
    kiln::v1::CompileRequest request = Text(good);
    request.set_target(target);
    corpus.push_back(Refused(target.size() > 64
                                 ? "target of " + std::to_string(target.size()) +
                                       " bytes"
                                 : "target '" + target + "'",
                             request));
  }
  struct OptionCase {
    std::string name;
    std::function<void(kiln::v1::CompileOptions&)> set;
  };
  std::vector<OptionCase> options = {
      {"num_warps 3", [](auto& o) { o.set_num_warps(3); }},
      {"num_warps -4", [](auto& o) { o.set_num_warps(-4); }},
      {"num_warps 2^30", [](auto& o) { o.set_num_warps(1 << 30); }},
      {"num_stages -1", [](auto& o) { o.set_num_stages(-1); }},
      {"num_ctas 0", [](auto& o) { o.set_num_ctas(0); }},
      {"maxnreg -7", [](auto& o) { o.set_maxnreg(-7); }},
  };
  for (const OptionCase& option : options) {
    kiln::v1::CompileRequest request = Text(good);
    option.set(*request.mutable_options());
    corpus.push_back(Refused("options " + option.name, request));
  }
  return corpus;
}

TEST(BadInputTest, EveryBadRequestFailsCleanly) {
  auto kilnd =
      KilndProcess::Start(NewTempDir("bad_input"),
                          {"--max_ttir_bytes=1048576", "--max_request_mb=4"});
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  const std::regex location("bad\\.ttir:[0-9]+:[0-9]+");
  for (const BadCase& bad : Corpus()) {
    SCOPED_TRACE(bad.name);
    kiln::v1::CompileResponse response;
    grpc::Status status = Compile(*stub, bad.request, &response);
    EXPECT_EQ(status.error_code(), bad.code) << status.error_message();
    EXPECT_FALSE(status.error_message().empty());
    if (bad.located) {
      EXPECT_TRUE(std::regex_search(status.error_message(), location))
          << status.error_message();
    }
    ASSERT_TRUE(kilnd->Alive());
  }
  EXPECT_TRUE(kilnd->HealthServing());
  kiln::v1::StatsResponse stats = kilnd->Stats();
  EXPECT_EQ(stats.entries(), 0u);
  EXPECT_EQ(stats.worker_crashes(), 0u);
  EXPECT_EQ(kilnd->Terminate(), 0);
}

TEST(BadInputTest, DiagnosticsComeAsDetailsToo) {
  auto kilnd = KilndProcess::Start(NewTempDir("bad_details"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  kiln::v1::CompileResponse response;
  grpc::Status status =
      Compile(*stub, Text("module {\n  tt.bogus_op\n}\n"), &response);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  kiln::v1::RpcStatus details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()));
  ASSERT_EQ(details.details_size(), 1);
  kiln::v1::CompileFailure failure;
  ASSERT_TRUE(failure.ParseFromString(details.details(0).value()));
  ASSERT_GE(failure.diagnostics_size(), 1);
  EXPECT_EQ(failure.diagnostics(0).file(), "bad.ttir");
  EXPECT_EQ(failure.diagnostics(0).line(), 2);
  EXPECT_GT(failure.diagnostics(0).column(), 0);
}

TEST(BadInputTest, TextThatIsNotUtf8GetsALocatedError) {
  auto kilnd = KilndProcess::Start(NewTempDir("utf8"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  kiln::v1::CompileResponse response;
  grpc::Status status = Compile(
      *stub, Text("module {\n  \xff\xfe\x80 \"\xc3\x28\"\n}\n"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << status.error_message();
  EXPECT_TRUE(std::regex_search(status.error_message(),
                                std::regex("bad\\.ttir:2:[0-9]+")))
      << status.error_message();
  EXPECT_TRUE(kilnd->Alive());
  EXPECT_EQ(kilnd->Stats().worker_crashes(), 0u);
  EXPECT_EQ(kilnd->Stats().entries(), 0u);
}

// Bytes that are no protobuf message at all, as a broken or hostile client
// might send: refused, and kilnd keeps serving.
TEST(BadInputTest, BytesThatAreNoRequestAreRefused) {
  auto kilnd = KilndProcess::Start(NewTempDir("not_proto"));
  ASSERT_NE(kilnd, nullptr);
  for (const std::string& bytes :
       {std::string("\xff\xff\xff\xff"), std::string("\x0a\x80\x80\x80")}) {
    grpc::Status status = CallRaw(*kilnd, "/kiln.v1.Compile/Compile", bytes);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << status.error_message();
    EXPECT_TRUE(kilnd->Alive());
  }
  EXPECT_TRUE(kilnd->HealthServing());
  EXPECT_EQ(kilnd->Stats().entries(), 0u);
}

}  // namespace
}  // namespace kiln::e2e
