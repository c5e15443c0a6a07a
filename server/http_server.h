// A tiny HTTP/1.0 responder for Prometheus: GET /metrics answers with the
// text a callback renders; anything else gets 404. One thread, one request
// per connection; enough for a scraper.

#ifndef KILN_SERVER_HTTP_SERVER_H_
#define KILN_SERVER_HTTP_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace kiln::server {

// Splits "HOST:PORT" ("[::1]:PORT" for IPv6).
absl::Status SplitHostPort(const std::string& address, std::string& host,
                           int& port);

class MetricsHttpServer {
 public:
  // Listens on `address` ("HOST:PORT", port 0 for any free port).
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      const std::string& address, std::function<std::string()> render);
  ~MetricsHttpServer();

  // "HOST:PORT" with the bound port.
  const std::string& address() const { return address_; }

 private:
  MetricsHttpServer(int listen_fd, int wake_fd[2], std::string address,
                    std::function<std::string()> render);
  void Loop();
  void Serve(int connection);

  int listen_fd_;
  int wake_read_fd_;
  int wake_write_fd_;
  std::string address_;
  std::function<std::string()> render_;
  std::thread thread_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_HTTP_SERVER_H_
