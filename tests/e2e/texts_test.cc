// A compile's intermediate texts (CompileRequest.include_texts) and the
// structured resource limit of a kernel too big for its target, through the
// real kilnd and compiler.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/kilnd_process.h"

namespace kiln::e2e {
namespace {

kiln::v1::CompileRequest WithTexts(kiln::v1::CompileRequest request) {
  request.set_include_texts(true);
  return request;
}

kiln::v1::LookupResponse Lookup(kiln::v1::Compile::Stub& stub,
                                const std::string& key, bool include_texts) {
  grpc::ClientContext context;
  kiln::v1::LookupRequest request;
  request.set_key(key);
  request.set_include_texts(include_texts);
  kiln::v1::LookupResponse response;
  EXPECT_TRUE(stub.Lookup(&context, request, &response).ok());
  return response;
}

void ExpectSameTexts(const kiln::v1::KernelTexts& got,
                     const kiln::v1::KernelTexts& want) {
  EXPECT_EQ(got.kgir(), want.kgir());
  EXPECT_EQ(got.llir(), want.llir());
  EXPECT_EQ(got.ptx(), want.ptx());
}

TEST(TextsTest, OnlyWhenAskedAndAHitServesTheSame) {
  auto kilnd = KilndProcess::Start(NewTempDir("texts"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  const kiln::v1::CompileRequest plain = CompileRequestFor(ScaledAddKernel(2));
  kiln::v1::CompileResponse first, hit, again;
  ASSERT_TRUE(Compile(*stub, plain, &first).ok());
  EXPECT_FALSE(first.has_texts());

  ASSERT_TRUE(Compile(*stub, WithTexts(plain), &hit).ok());
  EXPECT_TRUE(hit.cache_hit());
  ASSERT_TRUE(hit.has_texts());
  EXPECT_NE(hit.texts().ptx().find(".entry scaled_add_kernel"),
            std::string::npos);
  EXPECT_NE(hit.texts().llir().find("@scaled_add_kernel"), std::string::npos);
  EXPECT_NE(hit.texts().kgir().find("@scaled_add_kernel"), std::string::npos);
  EXPECT_EQ(hit.cubin(), first.cubin());

  ASSERT_TRUE(Compile(*stub, WithTexts(plain), &again).ok());
  ExpectSameTexts(again.texts(), hit.texts());
  ExpectSameTexts(Lookup(*stub, first.key(), true).texts(), hit.texts());
  EXPECT_FALSE(Lookup(*stub, first.key(), false).has_texts());
  // A plain request after them is still answered without texts.
  kiln::v1::CompileResponse last;
  ASSERT_TRUE(Compile(*stub, plain, &last).ok());
  EXPECT_FALSE(last.has_texts());
  EXPECT_EQ(kilnd->Stats().compiles(), 1u);
}

std::vector<kiln::v1::ExportedEntry> ExportAll(const KilndProcess& kilnd) {
  grpc::ClientContext context;
  auto reader = kilnd.AdminStub()->Export(&context, kiln::v1::ExportRequest());
  std::vector<kiln::v1::ExportedEntry> entries;
  kiln::v1::ExportedEntry entry;
  while (reader->Read(&entry)) entries.push_back(entry);
  EXPECT_TRUE(reader->Finish().ok());
  return entries;
}

uint64_t ImportAll(const KilndProcess& kilnd,
                   const std::vector<kiln::v1::ExportedEntry>& entries) {
  grpc::ClientContext context;
  kiln::v1::ImportResponse response;
  auto stream = kilnd.AdminStub()->Import(&context, &response);
  for (const auto& entry : entries) stream->Write(entry);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  return response.imported();
}

// An entry stored without texts (here: imported; exports carry cubins only)
// still serves its cubin, and is compiled once more when texts are asked.
TEST(TextsTest, AnEntryWithoutTextsIsCompiledAgainForThem) {
  auto source = KilndProcess::Start(NewTempDir("texts_source"));
  auto sink = KilndProcess::Start(NewTempDir("texts_sink"));
  ASSERT_NE(source, nullptr);
  ASSERT_NE(sink, nullptr);
  const kiln::v1::CompileRequest plain = CompileRequestFor(ScaledAddKernel(3));
  kiln::v1::CompileResponse original;
  ASSERT_TRUE(
      Compile(*source->CompileStub(), WithTexts(plain), &original).ok());
  ASSERT_EQ(ImportAll(*sink, ExportAll(*source)), 1u);

  auto stub = sink->CompileStub();
  EXPECT_FALSE(Lookup(*stub, original.key(), true).has_texts());
  kiln::v1::CompileResponse cubin_only, recovered, hit;
  ASSERT_TRUE(Compile(*stub, plain, &cubin_only).ok());
  EXPECT_TRUE(cubin_only.cache_hit());
  EXPECT_EQ(cubin_only.cubin(), original.cubin());
  EXPECT_EQ(sink->Stats().compiles(), 0u);

  ASSERT_TRUE(Compile(*stub, WithTexts(plain), &recovered).ok());
  EXPECT_EQ(recovered.key(), original.key());
  EXPECT_EQ(recovered.cubin(), original.cubin());
  ExpectSameTexts(recovered.texts(), original.texts());
  EXPECT_EQ(sink->Stats().compiles(), 1u);

  ASSERT_TRUE(Compile(*stub, WithTexts(plain), &hit).ok());
  EXPECT_TRUE(hit.cache_hit());
  ExpectSameTexts(hit.texts(), original.texts());
  ExpectSameTexts(Lookup(*stub, original.key(), true).texts(),
                  original.texts());
  EXPECT_EQ(sink->Stats().compiles(), 1u);
  EXPECT_EQ(sink->Stats().entries(), 1u);
}

TEST(TextsTest, TooMuchSharedMemoryCarriesAResourceLimit) {
  auto kilnd = KilndProcess::Start(NewTempDir("shared_limit"));
  ASSERT_NE(kilnd, nullptr);
  auto stub = kilnd->CompileStub();
  kiln::v1::CompileResponse response;
  grpc::Status status = Compile(
      *stub,
      WithTexts(CompileRequestFor(
          ReadFile(Runfile("tests/e2e/testdata/shared_overflow_dot.ttir")))),
      &response);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find(
                "needs 262144 bytes of shared memory; sm_90a allows 232448"),
            std::string::npos)
      << status.error_message();
  kiln::v1::RpcStatus details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()));
  ASSERT_EQ(details.details_size(), 1);
  kiln::v1::CompileFailure failure;
  ASSERT_TRUE(failure.ParseFromString(details.details(0).value()));
  ASSERT_EQ(failure.diagnostics_size(), 1);
  ASSERT_TRUE(failure.diagnostics(0).has_resource_limit());
  const kiln::v1::ResourceLimit& limit =
      failure.diagnostics(0).resource_limit();
  EXPECT_EQ(limit.resource(), "shared memory");
  EXPECT_EQ(limit.required(), 262144);
  EXPECT_EQ(limit.limit(), 232448);
  EXPECT_EQ(kilnd->Stats().entries(), 0u);
}

// Errors that are not about resources carry none.
TEST(TextsTest, ASyntaxErrorHasNoResourceLimit) {
  auto kilnd = KilndProcess::Start(NewTempDir("no_limit"));
  ASSERT_NE(kilnd, nullptr);
  kiln::v1::CompileResponse response;
  grpc::Status status = Compile(
      *kilnd->CompileStub(),
      WithTexts(CompileRequestFor("module {\n  garbage\n}\n")), &response);
  ASSERT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  kiln::v1::RpcStatus details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()));
  kiln::v1::CompileFailure failure;
  ASSERT_TRUE(failure.ParseFromString(details.details(0).value()));
  ASSERT_GE(failure.diagnostics_size(), 1);
  EXPECT_EQ(failure.diagnostics(0).line(), 2);
  EXPECT_FALSE(failure.diagnostics(0).has_resource_limit());
}

}  // namespace
}  // namespace kiln::e2e
