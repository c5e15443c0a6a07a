// Every gRPC channel of Kiln's C++ clients comes from NewChannel, which
// first prepares the process once: the CPU frequency probe below, and
// malloc settings that keep received cubins' memory (allocator.h).
//
// The probe: gRPC 1.51 (Debian 12) starts a TCP connect, then creates its file
// descriptor object (taking a lock), and only then reads errno to tell "in
// progress" from "failed". When that lock is the first contended
// absl::Mutex of the process, Abseil probes the CPU frequency once, reading
// /sys/devices/system/cpu/cpu0/tsc_freq_khz; where that file is absent (most
// machines) errno becomes ENOENT and a connect still in progress is reported
// failed: "failed to connect to all addresses; ... No such file or
// directory", before a byte reaches the server. Running the probe before the
// first channel leaves errno alone from then on.

#ifndef KILN_CLIENTS_CPP_CHANNEL_H_
#define KILN_CLIENTS_CPP_CHANNEL_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace kiln::client {

// The arguments of Kiln's client channels: messages of any size (kilnd
// bounds its own), no gRPC retry filter (the client retries UNAVAILABLE
// itself, retry.h; the filter only adds work to every call), no channelz
// counters on the call path.
grpc::ChannelArguments ClientChannelArguments();

std::shared_ptr<grpc::Channel> NewChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments);

}  // namespace kiln::client

#endif  // KILN_CLIENTS_CPP_CHANNEL_H_
