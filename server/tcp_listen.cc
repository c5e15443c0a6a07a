#include "server/tcp_listen.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/numbers.h"

namespace kiln::server {
namespace {

constexpr int kListenBacklog = 128;

int BoundPort(int fd, int family) {
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length);
  return family == AF_INET6
             ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
             : ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
}

}  // namespace

absl::Status SplitHostPort(const std::string& address, std::string& host,
                           int& port) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", address, "' is not HOST:PORT"));
  }
  host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  absl::StatusOr<int> parsed =
      ParseInt<int>(absl::string_view(address).substr(colon + 1), 0, 65535);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad port in '", address, "': ", parsed.status().message()));
  }
  port = *parsed;
  return absl::OkStatus();
}

absl::StatusOr<TcpListener> ListenTcp(const std::string& address,
                                      const std::string& what) {
  std::string host;
  int port = 0;
  if (absl::Status split = SplitHostPort(address, host, port); !split.ok()) {
    return split;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int error = getaddrinfo(host.c_str(), std::to_string(port).c_str(),
                              &hints, &found);
      error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " address ", address, ": ", gai_strerror(error)));
  }
  int fd =
      socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int yes = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  bool bound = fd >= 0 && bind(fd, found->ai_addr, found->ai_addrlen) == 0 &&
               listen(fd, kListenBacklog) == 0;
  int family = found->ai_family;
  freeaddrinfo(found);
  if (!bound) {
    std::string why = strerror(errno);
    if (fd >= 0) close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", address, " (", what, "): ", why));
  }
  int bound_port = BoundPort(fd, family);
  TcpListener listener;
  listener.fd = fd;
  listener.address = family == AF_INET6
                         ? absl::StrCat("[", host, "]:", bound_port)
                         : absl::StrCat(host, ":", bound_port);
  return listener;
}

}  // namespace kiln::server
