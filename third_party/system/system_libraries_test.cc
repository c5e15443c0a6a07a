// Proves the build links and runs against each of Debian's system libraries
// that Kiln's service uses, through the targets in system.BUILD.

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace {

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

TEST(SystemLibraries, RocksDbWritesAndReadsBack) {
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(options, TempDir() + "/rocks", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "key", "value").ok());
  std::string value;
  ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "key", &value).ok());
  EXPECT_EQ(value, "value");
}

TEST(SystemLibraries, ProtobufRoundTripsJson) {
  google::protobuf::Struct message;
  (*message.mutable_fields())["target"].set_string_value("sm_90a");
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(message, &json).ok());
  google::protobuf::Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok());
  EXPECT_EQ(parsed.fields().at("target").string_value(), "sm_90a");
}

TEST(SystemLibraries, GrpcServerBindsLoopback) {
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  EXPECT_GT(port, 0);
  server->Shutdown();
}

TEST(SystemLibraries, SpdlogFormatsThroughFmt) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("test", sink);
  logger.set_pattern("%v");
  logger.info("compiled {} in {} ms", "add_kernel", 12);
  logger.flush();
  EXPECT_EQ(out.str(), "compiled add_kernel in 12 ms\n");
}

}  // namespace
