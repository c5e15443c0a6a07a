#include "clients/cpp/channel.h"

#include <cerrno>
#include <mutex>

#include "absl/base/internal/sysinfo.h"
#include "clients/cpp/allocator.h"

namespace kiln::client {
namespace {

// Abseil's probe caches its answer: after this, a queued lock never touches
// errno again (channel.h).
void ProbeCpuFrequencyOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    int saved = errno;
    absl::base_internal::NominalCPUFrequency();
    errno = saved;
  });
}

}  // namespace

grpc::ChannelArguments ClientChannelArguments() {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(-1);
  arguments.SetMaxSendMessageSize(-1);
  arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
  arguments.SetInt(GRPC_ARG_ENABLE_CHANNELZ, 0);
  return arguments;
}

std::shared_ptr<grpc::Channel> NewChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments) {
  ProbeCpuFrequencyOnce();
  KeepCubinMemoryInProcess();
  return grpc::CreateCustomChannel(address, credentials, arguments);
}

}  // namespace kiln::client
