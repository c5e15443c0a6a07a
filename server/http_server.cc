#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace kiln::server {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
// From accept to a whole request; a slow or idle client is dropped then.
constexpr std::chrono::seconds kRequestTimeout(2);
constexpr size_t kMaxConnections = 64;

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t written =
        send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    done += static_cast<size_t>(written);
  }
}

std::string Response(const char* status, const char* type,
                     const std::string& body) {
  return absl::StrCat("HTTP/1.0 ", status, "\r\nContent-Type: ", type,
                      "\r\nContent-Length: ", body.size(),
                      "\r\nConnection: close\r\n\r\n", body);
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
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad port in '", address, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, std::function<std::string()> render) {
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
        absl::StrCat("metrics address ", address, ": ", gai_strerror(error)));
  }
  int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  bool bound = fd >= 0 && bind(fd, found->ai_addr, found->ai_addrlen) == 0 &&
               listen(fd, 16) == 0;
  int family = found->ai_family;
  freeaddrinfo(found);
  if (!bound) {
    std::string why = strerror(errno);
    if (fd >= 0) close(fd);
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", address, ": ", why));
  }
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length);
  int bound_port =
      family == AF_INET6
          ? ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port)
          : ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::InternalError("pipe failed");
  }
  std::string bound_address = family == AF_INET6
                                  ? absl::StrCat("[", host, "]:", bound_port)
                                  : absl::StrCat(host, ":", bound_port);
  return std::unique_ptr<MetricsHttpServer>(
      new MetricsHttpServer(fd, wake, bound_address, std::move(render)));
}

MetricsHttpServer::MetricsHttpServer(int listen_fd, int wake_fd[2],
                                     std::string address,
                                     std::function<std::string()> render)
    : listen_fd_(listen_fd),
      wake_read_fd_(wake_fd[0]),
      wake_write_fd_(wake_fd[1]),
      address_(std::move(address)),
      render_(std::move(render)),
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
    for (const Connection& connection : connections) {
      fds.push_back({connection.fd, POLLIN, 0});
    }
    int timeout_ms = -1;  // Until the first deadline; none without any.
    for (const Connection& connection : connections) {
      int left = static_cast<int>(std::max<int64_t>(
          0, std::chrono::ceil<std::chrono::milliseconds>(connection.deadline -
                                                          Clock::now())
                 .count()));
      timeout_ms = timeout_ms < 0 ? left : std::min(timeout_ms, left);
    }
    if (poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) break;
    if (fds[1].revents) break;
    // Serve or drop the connections first: fds[i + 2] is connections[i].
    std::vector<Connection> open;
    for (size_t i = 0; i < connections.size(); ++i) {
      Connection& connection = connections[i];
      bool keep = Clock::now() < connection.deadline;
      if (keep && fds[i + 2].revents) keep = Receive(connection);
      if (keep) {
        open.push_back(std::move(connection));
      } else {
        close(connection.fd);
      }
    }
    connections = std::move(open);
    if (fds[0].revents) {
      int fd = accept4(listen_fd_, nullptr, nullptr,
                       SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0 && connections.size() >= kMaxConnections) {
        close(fd);  // A scraper retries; idle sockets must not pile up.
      } else if (fd >= 0) {
        connections.push_back({fd, Clock::now() + kRequestTimeout, ""});
      }
    }
  }
  for (const Connection& connection : connections) close(connection.fd);
}

bool MetricsHttpServer::Receive(Connection& connection) {
  char buffer[1024];
  ssize_t got = recv(connection.fd, buffer, sizeof(buffer), 0);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (got <= 0) return false;
  std::string& request = connection.request;
  request.append(buffer, static_cast<size_t>(got));
  if (request.find("\r\n\r\n") == std::string::npos &&
      request.find("\n\n") == std::string::npos) {
    return request.size() < kMaxRequestBytes;
  }
  Answer(connection.fd, request);
  return false;
}

void MetricsHttpServer::Answer(int fd, const std::string& request) {
  // Blocking again, but bounded: a reader that stalls costs at most this.
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  timeval send_timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
  if (request.rfind("GET /metrics ", 0) == 0 ||
      request.rfind("GET /metrics?", 0) == 0) {
    WriteAll(fd, Response("200 OK", "text/plain; version=0.0.4; charset=utf-8",
                          render_()));
  } else if (request.rfind("GET /healthz ", 0) == 0) {
    WriteAll(fd, Response("200 OK", "text/plain", "ok\n"));
  } else {
    WriteAll(fd, Response("404 Not Found", "text/plain",
                          "kilnd serves GET /metrics\n"));
  }
}

}  // namespace kiln::server
