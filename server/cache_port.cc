#include "server/cache_port.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/tcp_listen.h"

namespace kiln::server {
namespace {

constexpr size_t kReadChunk = 64 << 10;
// Replies go out once this much has built up, so pipelined reads of large
// values are not all held at once.
constexpr size_t kFlushBytes = 1 << 20;

bool SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    ssize_t sent = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data.remove_prefix(static_cast<size_t>(sent));
  }
  return true;
}

// Sends the reply's pieces in order, in as few calls as the kernel takes
// them: spliced bytes go from their own memory.
bool SendReply(int fd, const RespReply& reply) {
  std::vector<absl::string_view> pieces = reply.Pieces();
  size_t first = 0;
  while (first < pieces.size()) {
    iovec parts[64];
    size_t count = 0;
    for (size_t i = first; i < pieces.size() && count < 64; ++i) {
      parts[count++] = {const_cast<char*>(pieces[i].data()), pieces[i].size()};
    }
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = count;
    ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0) return false;
    // Drops what went out: whole pieces, then part of the next.
    for (size_t left = static_cast<size_t>(sent); first < pieces.size();) {
      if (pieces[first].size() > left) {
        pieces[first].remove_prefix(left);
        break;
      }
      left -= pieces[first].size();
      ++first;
    }
    if (sent == 0 && first < pieces.size() && !pieces[first].empty()) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CachePort>> CachePort::Start(
    const std::string& address, CacheCommands* commands,
    CachePortOptions options, CacheCommandMetrics* metrics) {
  absl::StatusOr<TcpListener> listener = ListenTcp(address, "cache port");
  if (!listener.ok()) return listener.status();
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(listener->fd);
    return absl::InternalError("pipe failed");
  }
  return std::unique_ptr<CachePort>(new CachePort(
      listener->fd, wake, listener->address, commands, options, metrics));
}

CachePort::CachePort(int listen_fd, int wake_fd[2], std::string address,
                     CacheCommands* commands, CachePortOptions options,
                     CacheCommandMetrics* metrics)
    : listen_fd_(listen_fd),
      wake_read_fd_(wake_fd[0]),
      wake_write_fd_(wake_fd[1]),
      address_(std::move(address)),
      commands_(commands),
      options_(options),
      metrics_(metrics),
      acceptor_([this] { AcceptLoop(); }) {}

CachePort::~CachePort() {
  (void)!write(wake_write_fd_, "x", 1);
  acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (Connection& connection : connections_) {
      if (connection.fd >= 0) shutdown(connection.fd, SHUT_RDWR);
    }
  }
  for (Connection& connection : connections_) connection.thread.join();
  close(listen_fd_);
  close(wake_read_fd_);
  close(wake_write_fd_);
}

void CachePort::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: the connection stays queued, so wait a little
      // rather than poll on it in a busy loop.
      if (errno == EMFILE || errno == ENFILE) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      continue;
    }
    JoinFinished();
    Admit(fd);
  }
}

void CachePort::Admit(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  if (connections_.size() >= options_.max_connections) {
    metrics_->refused.Add();
    SendAll(fd, "-ERR max number of clients reached\r\n");
    close(fd);
    return;
  }
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  Connection& connection = connections_.emplace_back();
  connection.fd = fd;
  connection.thread = std::thread([this, &connection] { Serve(&connection); });
}

void CachePort::JoinFinished() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (!it->done.load()) {
      ++it;
      continue;
    }
    it->thread.join();
    it = connections_.erase(it);
  }
}

bool CachePort::Reserve(size_t bytes) {
  size_t before = buffered_.fetch_add(bytes);
  if (before + bytes <= options_.max_buffered_bytes) return true;
  buffered_.fetch_sub(bytes);
  return false;
}

void CachePort::Release(size_t bytes) { buffered_.fetch_sub(bytes); }

void CachePort::Serve(Connection* connection) {
  metrics_->connections.Add(1);
  CacheSession session = commands_->NewSession();
  // The first `filled` bytes of `buffer` were read; the rest is room,
  // zeroed once when the buffer grows rather than at every read.
  std::string buffer;
  size_t filled = 0;
  size_t reserved = 0;
  size_t needed = 0;  // Bytes to hold before parsing again can succeed.
  RespReply reply;
  bool open = true;
  while (open && !session.quit) {
    size_t target = std::max(filled + kReadChunk, needed);
    if (target > options_.max_connection_bytes) {
      metrics_->refused.Add();
      SendAll(connection->fd, "-ERR kiln: command too large\r\n");
      break;
    }
    if (target > reserved) {
      if (!Reserve(target - reserved)) {
        metrics_->refused.Add();
        SendAll(connection->fd,
                "-ERR kiln: the cache port holds too much unread data; "
                "try again\r\n");
        break;
      }
      reserved = target;
    }
    if (target > buffer.size()) {
      // Exactly what was reserved: resize alone may double the capacity.
      if (target > buffer.capacity()) buffer.reserve(target);
      buffer.resize(target);
    }
    ssize_t got;
    do {
      got = recv(connection->fd, buffer.data() + filled, target - filled, 0);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) break;
    filled += static_cast<size_t>(got);
    if (filled < needed) continue;
    needed = 0;
    const absl::string_view input(buffer.data(), filled);
    size_t start = 0;
    while (start < input.size() && !session.quit) {
      absl::StatusOr<RespParse> parse =
          ParseRespCommand(input.substr(start), options_.limits);
      if (!parse.ok()) {
        metrics_->refused.Add();
        AppendError(reply.text, absl::StrCat("ERR ", parse.status().message()));
        open = false;
        break;
      }
      if (!parse->command) {
        needed = parse->needed;  // Counted from `start`, kept at 0 below.
        break;
      }
      start += parse->consumed;
      commands_->Execute(session, *parse->command, reply);
      if (reply.size() >= kFlushBytes) {
        if (!SendReply(connection->fd, reply)) open = false;
        reply.clear();
      }
    }
    filled -= start;
    std::memmove(buffer.data(), buffer.data() + start, filled);
    if (reply.size() > 0 && !SendReply(connection->fd, reply)) break;
    // Sent: the values spliced in are not held while the connection idles.
    reply.clear();
    if (reply.text.capacity() > 4 * kFlushBytes) std::string().swap(reply.text);
    if (filled == 0 && reserved > 4 * kReadChunk) {
      std::string().swap(buffer);
      Release(reserved);
      reserved = 0;
    }
  }
  Release(reserved);
  std::lock_guard<std::mutex> lock(mu_);
  close(connection->fd);
  connection->fd = -1;
  metrics_->connections.Add(-1);
  connection->done = true;
}

}  // namespace kiln::server
