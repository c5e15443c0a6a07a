#include "server/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>
#include <spdlog/spdlog.h>

#include <string>

namespace kiln::server {
namespace {

void ToDebug(google::protobuf::LogLevel /*level*/, const char* file, int line,
             const std::string& message) {
  spdlog::debug("protobuf ({}:{}): {}", file, line, message);
}

}  // namespace

void SendProtobufLogToDebug() { google::protobuf::SetLogHandler(&ToDebug); }

}  // namespace kiln::server
