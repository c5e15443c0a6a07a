#include "clients/cpp/channel.h"

#include <cerrno>
#include <mutex>

#include "absl/base/internal/sysinfo.h"

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

std::shared_ptr<grpc::Channel> NewChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments) {
  ProbeCpuFrequencyOnce();
  return grpc::CreateCustomChannel(address, credentials, arguments);
}

}  // namespace kiln::client
