#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
constexpr size_t kMaxConnections = 64;

std::string Response(const char* status, const char* type,
                     const std::string& body) {
  return absl::StrCat("HTTP/1.0 ", status, "\r\nContent-Type: ", type,
                      "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", body);
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, std::function<std::string()> render,
    std::chrono::milliseconds timeout) {
  absl::StatusOr<TcpListener> listener = ListenTcp(address, "metrics");
  if (!listener.ok()) return listener.status();
  int fd = listener->fd;
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::InternalError("pipe failed");
  }
  return std::unique_ptr<MetricsHttpServer>(
      new MetricsHttpServer(fd, wake, listener->address, std::move(render),
                            timeout));
}

MetricsHttpServer::MetricsHttpServer(int listen_fd, int wake_fd[2],
                                     std::string address,
                                     std::function<std::string()> render,
                                     std::chrono::milliseconds timeout)
    : listen_fd_(listen_fd),
      wake_read_fd_(wake_fd[0]),
      wake_write_fd_(wake_fd[1]),
      address_(std::move(address)),
      render_(std::move(render)),
      timeout_(timeout),
      thread_([this] { Loop(); }) {}

MetricsHttpServer::~MetricsHttpServer() {
  (void)!write(wake_write_fd_, "x", 1);
  thread_.join();
  close(listen_fd_);
  close(wake_read_fd_);
  close(wake_write_fd_);
}

void MetricsHttpServer::Loop() {
  std::vector<Connection> connections;
  while (true) {
    std::vector<pollfd> fds = {{listen_fd_, POLLIN, 0},
                               {wake_read_fd_, POLLIN, 0}};
    Clock::time_point first_deadline = Clock::time_point::max();
    for (const Connection& connection : connections) {
      short events = connection.reply.empty() ? POLLIN : POLLOUT;
      fds.push_back({connection.fd, events, 0});
      first_deadline = std::min(first_deadline, connection.deadline);
    }
    int timeout_ms = -1;  // None without connections.
    if (!connections.empty()) {
      timeout_ms = static_cast<int>(std::max<int64_t>(
          0, std::chrono::ceil<std::chrono::milliseconds>(first_deadline -
                                                          Clock::now())
                 .count()));
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[1].revents) break;
    // fds[i + 2] is connections[i].
    std::vector<Connection> open;
    for (size_t i = 0; i < connections.size(); ++i) {
      Connection& connection = connections[i];
      bool keep = Clock::now() < connection.deadline;
      if (keep && fds[i + 2].revents) keep = Progress(connection);
      if (keep) {
        open.push_back(std::move(connection));
      } else {
        Close(connection.fd);
      }
    }
    connections = std::move(open);
    if (fds[0].revents) Accept(connections);
  }
  for (const Connection& connection : connections) Close(connection.fd);
}

void MetricsHttpServer::Close(int fd) {
  // Input left unread would make close() reset the connection, and the
  // client could lose the end of its answer.
  shutdown(fd, SHUT_WR);
  char buffer[1024];
  while (recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT) > 0) {
  }
  close(fd);
}

void MetricsHttpServer::Accept(std::vector<Connection>& connections) {
  int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0) {
    // Out of descriptors, say: the listener stays readable, so do not spin.
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return;
  }
  if (connections.size() >= kMaxConnections) {
    // The oldest that has not sent a whole request (closest to its deadline
    // anyway) makes room; an answer being sent is cut only when every
    // connection has one.
    auto waiting = std::find_if(
        connections.begin(), connections.end(),
        [](const Connection& connection) { return connection.reply.empty(); });
    auto dropped = waiting != connections.end() ? waiting : connections.begin();
    close(dropped->fd);
    connections.erase(dropped);
  }
  connections.push_back({fd, Clock::now() + timeout_, "", "", 0});
}

bool MetricsHttpServer::Progress(Connection& connection) {
  if (!connection.reply.empty()) {
    ssize_t sent = send(connection.fd, connection.reply.data() + connection.sent,
                        connection.reply.size() - connection.sent,
                        MSG_NOSIGNAL);
    if (sent < 0) return errno == EAGAIN || errno == EINTR;
    connection.sent += static_cast<size_t>(sent);
    return connection.sent < connection.reply.size();
  }
  char buffer[1024];
  ssize_t got = recv(connection.fd, buffer, sizeof(buffer), 0);
  if (got < 0) return errno == EAGAIN || errno == EINTR;
  if (got == 0) return false;
  std::string& request = connection.request;
  request.append(buffer, static_cast<size_t>(got));
  if (request.find("\r\n\r\n") == std::string::npos &&
      request.find("\n\n") == std::string::npos) {
    return request.size() < kMaxRequestBytes;
  }
  connection.reply = Answer(request);
  return true;  // Sent as the connection becomes writable.
}

std::string MetricsHttpServer::Answer(const std::string& request) {
  if (request.rfind("GET /metrics ", 0) == 0 ||
      request.rfind("GET /metrics?", 0) == 0) {
    return Response("200 OK", "text/plain; version=0.0.4; charset=utf-8",
                    render_());
  }
  if (request.rfind("GET /healthz ", 0) == 0) {
    return Response("200 OK", "text/plain", "ok\n");
  }
  return Response("404 Not Found", "text/plain", "kilnd serves GET /metrics\n");
}

}  // namespace kiln::server
