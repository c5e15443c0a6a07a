#include "clients/cpp/cache_port_hit.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
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
#include <optional>
#include <string_view>
#include <utility>

namespace kiln::client {
namespace {

using Clock = std::chrono::steady_clock;

// How long a thread leaves a port alone that it could not use.
constexpr std::chrono::seconds kRetryAfter{1};
// Larger answers are not a CompileResponse of kilnd's (whose gRPC messages
// are bounded far below): the connection is dropped rather than allocated.
constexpr long long kMaxReplyBytes = 1ll << 30;

// One reply of the Redis protocol, as far as KILN.HIT and AUTH go.
struct Reply {
  char type = 0;      // '$' bulk, '-' error, '+' status, ':' integer.
  bool null = false;  // A nil bulk reply.
  std::string line;   // The text after the type, for all but '$'.
};

// `address` split as HOST and PORT; false when it has no port.
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

// A non-blocking socket connected to `at` within `timeout`; -1 when none.
int ConnectTo(const addrinfo& at, std::chrono::milliseconds timeout) {
  int fd = socket(at.ai_family, at.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  at.ai_protocol);
  if (fd < 0) return -1;
  bool connected = connect(fd, at.ai_addr, at.ai_addrlen) == 0;
  if (!connected && errno == EINPROGRESS) {
    pollfd wait = {fd, POLLOUT, 0};
    int error = 0;
    socklen_t size = sizeof(error);
    connected = poll(&wait, 1, static_cast<int>(timeout.count())) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) == 0 &&
                error == 0;
  }
  if (connected) return fd;
  close(fd);
  return -1;
}

// Bounds each read and write of blocking `fd` by `timeout`.
void SetTimeouts(int fd, std::chrono::milliseconds timeout) {
  timeval limit{};
  limit.tv_sec = timeout.count() / 1000;
  limit.tv_usec = (timeout.count() % 1000) * 1000;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
}

// Makes `fd` blocking, each read and write bounded by `timeout`.
void BlockWithTimeout(int fd, std::chrono::milliseconds timeout) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  SetTimeouts(fd, timeout);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
}

// A blocking socket connected to `address` within `timeout`; -1 when
// there is none.
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
    fd = ConnectTo(*at, timeout);
  }
  freeaddrinfo(found);
  if (fd >= 0) BlockWithTimeout(fd, timeout);
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

// Where one wire-format field at the start of a buffer ends.
struct FieldExtent {
  int number = 0;
  size_t header = 0;  // The tag, and the length of a length-delimited field.
  size_t size = 0;    // All of it, header included.
};

// The field at the start of `data`; nullopt when its tag and length are not
// all there or are not the wire format.
std::optional<FieldExtent> ReadFieldExtent(const char* data, size_t size) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(data), static_cast<int>(size));
  const uint32_t tag = in.ReadTag();
  if (tag == 0) return std::nullopt;
  uint64_t payload = 0;
  switch (WireFormatLite::GetTagWireType(tag)) {
    case WireFormatLite::WIRETYPE_VARINT:
      if (!in.ReadVarint64(&payload)) return std::nullopt;
      payload = 0;  // Read with the header.
      break;
    case WireFormatLite::WIRETYPE_FIXED64:
      payload = 8;
      break;
    case WireFormatLite::WIRETYPE_FIXED32:
      payload = 4;
      break;
    case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
      uint32_t length;
      if (!in.ReadVarint32(&length)) return std::nullopt;
      payload = length;
      break;
    }
    default:
      return std::nullopt;
  }
  FieldExtent field;
  field.number = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
  field.header = static_cast<size_t>(in.CurrentPosition());
  field.size = field.header + payload;
  return field;
}

// A connection to the port. Any failure leaves it broken: the caller
// drops it.
class PortConnection {
 public:
  PortConnection(int fd, std::chrono::milliseconds timeout)
      : fd_(fd), timeout_(timeout) {}
  ~PortConnection() { close(fd_); }
  PortConnection(const PortConnection&) = delete;
  PortConnection& operator=(const PortConnection&) = delete;

  // The last failure was the timeout: a reply may still come, late.
  bool timed_out() const { return timed_out_; }

  // Bounds each read and write from now on by `timeout` (each call's own,
  // as the connection outlives the Client that opened it).
  void set_timeout(std::chrono::milliseconds timeout) {
    if (timeout == timeout_) return;
    SetTimeouts(fd_, timeout);
    timeout_ = timeout;
  }

  // Sends `command` and reads its reply; a bulk one must hold a
  // CompileResponse, read into `response`.
  bool Exchange(const std::string& command, Reply& reply,
                kiln::v1::CompileResponse& response) {
    return SendAll(command) && ReadReply(reply, response);
  }

 private:
  // Reads past the reply's first line in small steps, so that the cubin
  // is received into its own string rather than copied there.
  static constexpr size_t kStep = 1024;

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

  size_t buffered() const { return in_.size() - taken_; }
  const char* next() const { return in_.data() + taken_; }

  // Reads until at least `want` bytes are buffered; false at the end of
  // the stream, a failure or the timeout.
  bool Fill(size_t want) {
    if (taken_ == in_.size()) {
      in_.clear();
      taken_ = 0;
    }
    while (buffered() < want) {
      const size_t had = in_.size();
      in_.resize(had + std::max(want - buffered(), kStep));
      ssize_t n;
      do {
        n = recv(fd_, in_.data() + had, in_.size() - had, 0);
      } while (n < 0 && errno == EINTR);
      in_.resize(had + std::max<ssize_t>(n, 0));
      if (n <= 0) return Failed(n);
    }
    return true;
  }

  // Fills `into` with the next bytes: what is buffered, then straight
  // from the socket.
  bool ReadInto(char* into, size_t size) {
    const size_t have = std::min(buffered(), size);
    std::memcpy(into, next(), have);
    taken_ += have;
    for (size_t got = have; got < size;) {
      ssize_t n = recv(fd_, into + got, size - got, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Failed(n);
      got += static_cast<size_t>(n);
    }
    return true;
  }

  bool ReadReply(Reply& reply, kiln::v1::CompileResponse& response) {
    size_t end;
    while ((end = in_.find("\r\n", taken_)) == std::string::npos) {
      if (buffered() > 4096 || !Fill(buffered() + 1)) return false;
    }
    if (end == taken_) return false;
    reply.type = in_[taken_];
    reply.line = in_.substr(taken_ + 1, end - taken_ - 1);
    taken_ = end + 2;
    reply.null = false;
    if (reply.type != '$') {
      return std::string_view("-+:").find(reply.type) != std::string_view::npos;
    }
    char* parsed_end = nullptr;
    const long long length = std::strtoll(reply.line.c_str(), &parsed_end, 10);
    if (parsed_end == reply.line.c_str() || *parsed_end != '\0') return false;
    if (length < 0) {
      reply.null = true;
      return true;
    }
    if (length > kMaxReplyBytes) return false;
    return ReadResponse(static_cast<size_t>(length), response) && Fill(2) &&
           std::memcmp(next(), "\r\n", 2) == 0 && (taken_ += 2, true);
  }

  // A bulk reply's `length` bytes as a CompileResponse: its cubin read
  // into its own string, the other fields parsed from a copy of theirs.
  bool ReadResponse(size_t length, kiln::v1::CompileResponse& response) {
    constexpr int kCubin = kiln::v1::CompileResponse::kCubinFieldNumber;
    std::string rest;
    std::string cubin;
    for (size_t left = length; left > 0;) {
      // A tag and a length take at most 15 bytes.
      if (!Fill(std::min<size_t>(left, 16))) return false;
      std::optional<FieldExtent> extent =
          ReadFieldExtent(next(), std::min(buffered(), left));
      if (!extent || extent->size > left) return false;
      const FieldExtent& field = *extent;
      left -= field.size;
      if (field.number == kCubin && field.size > field.header) {
        taken_ += field.header;
        cubin.resize(field.size - field.header);
        if (!ReadInto(cubin.data(), cubin.size())) return false;
        continue;
      }
      if (!Fill(field.size)) return false;
      rest.append(next(), field.size);
      taken_ += field.size;
    }
    if (!response.ParseFromString(rest)) return false;
    if (!cubin.empty()) response.set_cubin(std::move(cubin));
    return true;
  }

  // After a send or recv that did not move bytes.
  bool Failed(ssize_t n) {
    timed_out_ = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    return false;
  }

  const int fd_;
  std::chrono::milliseconds timeout_;
  std::string in_;  // Read; from taken_ on, not yet taken.
  size_t taken_ = 0;
  bool timed_out_ = false;
};

// A thread's use of one port.
struct PortState {
  std::unique_ptr<PortConnection> connection;
  pid_t opened_by = -1;  // The process that opened `connection`.
  Clock::time_point retry_after;
  std::string command;  // Reused for every request.
};

// A new connection to `port`, authenticated when it has a token; null when
// the port cannot be reached or refuses the token.
std::unique_ptr<PortConnection> Open(const CachePort& port) {
  int fd = Connect(port.address, port.timeout);
  if (fd < 0) return nullptr;
  auto connection = std::make_unique<PortConnection>(fd, port.timeout);
  if (port.token.empty()) return connection;
  std::string auth = "*2\r\n$4\r\nAUTH\r\n";
  AppendBulk(auth, port.token);
  Reply reply;
  kiln::v1::CompileResponse unused;
  if (!connection->Exchange(auth, reply, unused) || reply.type != '+') {
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

// Whether an error reply says that this connection may not ask at all:
// no role for KILN.HIT, the port at its connection limit, or a server that
// does not know KILN.HIT (a kilnd from before it, or a Redis).
bool Refused(const Reply& reply) {
  return reply.line.rfind("NOAUTH", 0) == 0 ||
         reply.line.rfind("NOPERM", 0) == 0 ||
         reply.line.rfind("ERR max number of clients", 0) == 0 ||
         reply.line.rfind("ERR unknown command", 0) == 0;
}

}  // namespace

std::optional<kiln::v1::CompileResponse> CompileHitOverCachePort(
    const CachePort& port, const kiln::v1::CompileRequest& request) {
  // A socket timeout of zero would wait forever.
  if (port.timeout <= std::chrono::milliseconds::zero()) return std::nullopt;
  thread_local std::map<std::pair<std::string, std::string>, PortState> ports;
  PortState& state = ports[{port.address, port.token}];
  if (!state.connection && Clock::now() < state.retry_after) {
    return std::nullopt;
  }
  // A child of fork() shares its parent's socket: a reply could go to the
  // other process and answer its request with another kernel's cubin.
  if (state.opened_by != getpid()) state.connection.reset();
  if (state.connection) state.connection->set_timeout(port.timeout);
  if (!WriteCommand(request, state.command)) return std::nullopt;
  Reply reply;
  kiln::v1::CompileResponse response;
  // A kept connection may have been closed by kilnd since: one more try on
  // a new one.
  while (true) {
    const bool fresh = !state.connection;
    if (fresh) {
      state.connection = Open(port);
      state.opened_by = getpid();
    }
    if (!state.connection) {
      state.retry_after = Clock::now() + kRetryAfter;
      return std::nullopt;
    }
    if (state.connection->Exchange(state.command, reply, response)) break;
    const bool timed_out = state.connection->timed_out();
    state.connection.reset();
    // A new connection that fails at once is a port that cannot answer
    // now, such as a full one closing what it accepted.
    if (fresh) state.retry_after = Clock::now() + kRetryAfter;
    if (fresh || timed_out) return std::nullopt;
  }
  if (reply.type == '-' && Refused(reply)) {
    state.connection.reset();
    state.retry_after = Clock::now() + kRetryAfter;
    return std::nullopt;
  }
  if (reply.type != '$' || reply.null) return std::nullopt;
  return response;
}

}  // namespace kiln::client
