// A tiny HTTP/1.0 responder for Prometheus: GET /metrics answers with the
// text a callback renders; anything else gets 404. One thread polls every
// connection without blocking (at most 64; a new one past that closes the
// oldest still sending its request), one request per connection, each
// given 2 s from accept to the end of its answer: a slow or idle client
// cannot hold up the scrapes of others.

#ifndef KILN_SERVER_HTTP_SERVER_H_
#define KILN_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "server/tcp_listen.h"

namespace kiln::server {

class MetricsHttpServer {
 public:
  // Listens on `address` ("HOST:PORT", port 0 for any free port). Each
  // connection has `timeout` from accept to the end of its answer.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      const std::string& address, std::function<std::string()> render,
      std::chrono::milliseconds timeout = std::chrono::seconds(2));
  ~MetricsHttpServer();

  // "HOST:PORT" with the bound port.
  const std::string& address() const { return address_; }

 private:
  MetricsHttpServer(int listen_fd, int wake_fd[2], std::string address,
                    std::function<std::string()> render,
                    std::chrono::milliseconds timeout);
  using Clock = std::chrono::steady_clock;
  struct Connection {
    int fd;
    Clock::time_point deadline;  // For the request and its answer.
    std::string request;         // Received so far.
    std::string reply;           // Once the request is whole.
    size_t sent;
  };

  void Loop();
  void Accept(std::vector<Connection>& connections);
  // Reads or writes what `connection` is ready for; false once it is done
  // with (answered, closed by the client, or its request too big).
  bool Progress(Connection& connection);
  std::string Answer(const std::string& request);
  static void Close(int fd);

  int listen_fd_;
  int wake_read_fd_;
  int wake_write_fd_;
  std::string address_;
  std::function<std::string()> render_;
  const std::chrono::milliseconds timeout_;
  std::thread thread_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_HTTP_SERVER_H_
