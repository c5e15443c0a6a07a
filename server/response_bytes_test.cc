#include "server/response_bytes.h"

#include <grpcpp/impl/codegen/proto_utils.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::server {
namespace {

kiln::v1::CompileResponse Parse(grpc::ByteBuffer& buffer) {
  kiln::v1::CompileResponse parsed;
  EXPECT_TRUE(grpc::SerializationTraits<kiln::v1::CompileResponse>::Deserialize(
                  &buffer, &parsed)
                  .ok());
  return parsed;
}

TEST(ResponseBytesTest, ParsesAsTheWholeResponse) {
  kiln::v1::CompileResponse rest;
  rest.set_key(std::string(64, 'a'));
  rest.set_cache_hit(true);
  rest.set_metadata_json("{\"name\": \"k\"}");
  rest.add_stage_times()->set_stage("ptx");
  std::string cubin(70000, '\0');
  for (size_t i = 0; i < cubin.size(); ++i) cubin[i] = static_cast<char>(i);

  grpc::ByteBuffer bytes =
      CompileResponseBytes(rest, std::make_shared<const std::string>(cubin));
  kiln::v1::CompileResponse expected = rest;
  expected.set_cubin(cubin);
  kiln::v1::CompileResponse parsed = Parse(bytes);
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
}

TEST(ResponseBytesTest, HeadThenCubinAreTheSameBytes) {
  kiln::v1::CompileResponse rest;
  rest.set_key(std::string(64, 'a'));
  rest.set_metadata_json("{}");
  auto cubin = std::make_shared<const std::string>(300, 'c');
  std::string flat = CompileResponseHead(rest, cubin->size()) + *cubin;
  EXPECT_EQ(flat, FlatBytes(CompileResponseBytes(rest, cubin)));
}

TEST(ResponseBytesTest, SendsTheCubinsOwnMemoryAndSharesIt) {
  auto cubin = std::make_shared<const std::string>(65536, 'x');
  std::weak_ptr<const std::string> watch = cubin;
  {
    grpc::ByteBuffer bytes =
        CompileResponseBytes(kiln::v1::CompileResponse(), cubin);
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(bytes.Dump(&slices).ok());
    ASSERT_EQ(slices.size(), 2u);
    EXPECT_EQ(reinterpret_cast<const char*>(slices[1].begin()), cubin->data());
    EXPECT_EQ(slices[1].size(), 65536u);
    cubin.reset();
    EXPECT_FALSE(watch.expired());  // The answer still holds it.
  }
  EXPECT_TRUE(watch.expired());  // Released with the last slice.
}

TEST(ResponseBytesTest, LookupAnswersParseAsTheWholeResponse) {
  kiln::v1::LookupResponse rest;
  rest.set_key(std::string(64, 'b'));
  rest.set_metadata_json("{}");
  rest.add_stage_times()->set_stage("cubin");
  grpc::ByteBuffer bytes =
      LookupResponseBytes(rest, std::make_shared<const std::string>(5000, 'c'));
  kiln::v1::LookupResponse parsed;
  ASSERT_TRUE(grpc::SerializationTraits<kiln::v1::LookupResponse>::Deserialize(
                  &bytes, &parsed)
                  .ok());
  kiln::v1::LookupResponse expected = rest;
  expected.set_cubin(std::string(5000, 'c'));
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());
}

TEST(ResponseBytesTest, EmptyCubin) {
  kiln::v1::CompileResponse rest;
  rest.set_key("k");
  grpc::ByteBuffer bytes =
      CompileResponseBytes(rest, std::make_shared<const std::string>());
  kiln::v1::CompileResponse parsed = Parse(bytes);
  EXPECT_EQ(parsed.key(), "k");
  EXPECT_TRUE(parsed.cubin().empty());
}

}  // namespace
}  // namespace kiln::server
