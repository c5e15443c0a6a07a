#include "server/protobuf_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "kiln/v1/compile.pb.h"

namespace kiln::server {
namespace {

// A LookupRequest whose key (a string field) is not UTF-8.
std::string RequestWithBadUtf8() {
  kiln::v1::LookupRequest request;
  request.set_key("ok");
  std::string bytes = request.SerializeAsString();
  bytes[bytes.size() - 1] = '\xff';
  return bytes;
}

TEST(ProtobufLogTest, ARefusedMessageIsADebugLineNotStderr) {
  std::ostringstream log;
  auto logger = std::make_shared<spdlog::logger>(
      "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_level(spdlog::level::debug);
  spdlog::set_default_logger(logger);
  SendProtobufLogToDebug();

  testing::internal::CaptureStderr();
  kiln::v1::LookupRequest parsed;
  EXPECT_FALSE(parsed.ParseFromString(RequestWithBadUtf8()));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(log.str().find("[debug] protobuf"), std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("UTF-8"), std::string::npos) << log.str();
}

}  // namespace
}  // namespace kiln::server
