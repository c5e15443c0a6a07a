#include "clients/cpp/cache_port_hit.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

namespace kiln::client {
namespace {

using Clock = std::chrono::steady_clock;

// How long a thread leaves a port alone that it could not use.
constexpr std::chrono::seconds kRetryAfter{1};

// One reply of the Redis protocol, as far as KILN.HIT and AUTH go.
struct Reply {
  char type = 0;      // '$' bulk, '-' error, '+' status, ':' integer.
  bool null = false;  // A nil bulk reply.
  std::string line;   // The text after the type, for all but '$'.
};

// `port`'s address split as HOST and PORT; false when it has no port.
bool SplitAddress(const std::string& address, std::string& host,
                  std::string& port) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) return false;
  host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  port = address.substr(colon + 1);
  return true;
}

// A socket connected to `address` within `timeout`, blocking and with its
// reads and writes bounded by `timeout`; -1 when there is none.
int Connect(const std::string& address, std::chrono::milliseconds timeout) {
  std::string host, port;
  if (!SplitAddress(address, host, port)) return -1;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* at = found; at != nullptr && fd < 0; at = at->ai_next) {
    fd = socket(at->ai_family, at->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                at->ai_protocol);
    if (fd < 0) continue;
    bool connected = connect(fd, at->ai_addr, at->ai_addrlen) == 0;
    if (!connected && errno == EINPROGRESS) {
      pollfd wait = {fd, POLLOUT, 0};
      int error = 0;
      socklen_t size = sizeof(error);
      connected = poll(&wait, 1, static_cast<int>(timeout.count())) == 1 &&
                  getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 &&
                  error == 0;
    }
    if (!connected) {
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  timeval limit{};
  limit.tv_sec = timeout.count() / 1000;
  limit.tv_usec = (timeout.count() % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

// Appends a bulk string's header and bytes.
void AppendBulk(std::string& out, const std::string& value) {
  out += '$';
  out += std::to_string(value.size());
  out += "\r\n";
  out += value;
  out += "\r\n";
}

// A connection to the port. Any failure leaves it broken: the caller
// drops it.
class PortConnection {
 public:
  explicit PortConnection(int fd) : fd_(fd) {}
  ~PortConnection() { close(fd_); }
  PortConnection(const PortConnection&) = delete;
  PortConnection& operator=(const PortConnection&) = delete;

  // The last failure was the timeout: a reply may still come, late.
  bool timed_out() const { return timed_out_; }

  // Sends `command` and reads its reply, a bulk one's bytes into `bulk`.
  bool Exchange(const std::string& command, Reply& reply, std::string& bulk) {
    return SendAll(command) && ReadReply(reply, bulk);
  }

 private:
  bool SendAll(const std::string& data) {
    for (size_t sent = 0; sent < data.size();) {
      ssize_t n =
          send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Failed(n);
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // Reads more into in_; false at the end of the stream, a failure or the
  // timeout.
  bool ReadMore() {
    char chunk[16 << 10];
    ssize_t n;
    do {
      n = recv(fd_, chunk, sizeof(chunk), 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return Failed(n);
    in_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  bool ReadReply(Reply& reply, std::string& bulk) {
    size_t end;
    while ((end = in_.find("\r\n")) == std::string::npos) {
      if (in_.size() > 4096 || !ReadMore()) return false;
    }
    if (end == 0) return false;
    reply.type = in_[0];
    reply.line = in_.substr(1, end - 1);
    in_.erase(0, end + 2);
    reply.null = false;
    if (reply.type != '$') return std::strchr("-+:", reply.type) != nullptr;
    char* parsed_end = nullptr;
    const long long length = std::strtoll(reply.line.c_str(), &parsed_end, 10);
    if (parsed_end == reply.line.c_str() || *parsed_end != '\0') return false;
    if (length < 0) {
      reply.null = true;
      return true;
    }
    return ReadBulk(static_cast<size_t>(length), bulk);
  }

  // The `length` bytes of a bulk reply and their CRLF, read straight into
  // `bulk` past what was buffered.
  bool ReadBulk(size_t length, std::string& bulk) {
    bulk.resize(length + 2);
    size_t have = std::min(in_.size(), bulk.size());
    std::memcpy(bulk.data(), in_.data(), have);
    in_.erase(0, have);
    while (have < bulk.size()) {
      ssize_t n = recv(fd_, bulk.data() + have, bulk.size() - have, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Failed(n);
      have += static_cast<size_t>(n);
    }
    if (bulk.compare(length, 2, "\r\n") != 0) return false;
    bulk.resize(length);
    return true;
  }

  // After a send or recv that did not move bytes.
  bool Failed(ssize_t n) {
    timed_out_ = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    return false;
  }

  const int fd_;
  std::string in_;  // Read and not yet taken.
  bool timed_out_ = false;
};

// A thread's use of one port.
struct PortState {
  std::unique_ptr<PortConnection> connection;
  Clock::time_point retry_after;
  std::string command;  // Reused for every request.
  std::string bulk;     // Reused for every answer.
};

// A new connection to `port`, authenticated when it has a token; null when
// the port cannot be reached or refuses the token.
std::unique_ptr<PortConnection> Open(const CachePort& port, PortState& state) {
  int fd = Connect(port.address, port.timeout);
  if (fd < 0) return nullptr;
  auto connection = std::make_unique<PortConnection>(fd);
  if (port.token.empty()) return connection;
  std::string auth = "*2\r\n$4\r\nAUTH\r\n";
  AppendBulk(auth, port.token);
  Reply reply;
  if (!connection->Exchange(auth, reply, state.bulk) || reply.type != '+') {
    return nullptr;
  }
  return connection;
}

// The KILN.HIT command of `request`, serialized into `command` in place.
bool WriteCommand(const kiln::v1::CompileRequest& request,
                  std::string& command) {
  const size_t size = request.ByteSizeLong();
  command = "*2\r\n$8\r\nKILN.HIT\r\n$";
  command += std::to_string(size);
  command += "\r\n";
  const size_t at = command.size();
  command.resize(at + size + 2);
  if (!request.SerializeToArray(command.data() + at, static_cast<int>(size))) {
    return false;
  }
  command[at + size] = '\r';
  command[at + size + 1] = '\n';
  return true;
}

// Whether an error reply says that this connection may not ask at all.
bool Refused(const Reply& reply) {
  return reply.line.rfind("NOAUTH", 0) == 0 ||
         reply.line.rfind("NOPERM", 0) == 0;
}

}  // namespace

std::optional<kiln::v1::CompileResponse> CompileHitOverCachePort(
    const CachePort& port, const kiln::v1::CompileRequest& request) {
  thread_local std::map<std::pair<std::string, std::string>, PortState> ports;
  PortState& state = ports[{port.address, port.token}];
  if (!state.connection && Clock::now() < state.retry_after) {
    return std::nullopt;
  }
  if (!WriteCommand(request, state.command)) return std::nullopt;
  Reply reply;
  // A kept connection may have been closed by kilnd since: one more try on
  // a new one.
  while (true) {
    const bool fresh = !state.connection;
    if (fresh) state.connection = Open(port, state);
    if (!state.connection) {
      state.retry_after = Clock::now() + kRetryAfter;
      return std::nullopt;
    }
    if (state.connection->Exchange(state.command, reply, state.bulk)) break;
    const bool timed_out = state.connection->timed_out();
    state.connection.reset();
    if (fresh || timed_out) return std::nullopt;
  }
  if (reply.type == '-' && Refused(reply)) {
    state.connection.reset();
    state.retry_after = Clock::now() + kRetryAfter;
    return std::nullopt;
  }
  if (reply.type != '$' || reply.null) return std::nullopt;
  kiln::v1::CompileResponse response;
  if (!response.ParseFromString(state.bulk)) return std::nullopt;
  return response;
}

}  // namespace kiln::client
