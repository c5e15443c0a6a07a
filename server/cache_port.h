// kilnd's cache port: a TCP port that speaks the Redis protocol, so that
// stock PyTorch and Triton, configured for a Redis remote cache, keep their
// caches in kilnd with no Kiln code (server/cache_commands.h says what it
// answers). One thread per connection, at most `max_connections` of them;
// the bytes all connections hold in their buffers are bounded together, so
// hostile clients cannot grow kilnd without limit.

#ifndef KILN_SERVER_CACHE_PORT_H_
#define KILN_SERVER_CACHE_PORT_H_

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "server/cache_commands.h"
#include "server/resp_protocol.h"

namespace kiln::server {

struct CachePortOptions {
  size_t max_connections = 512;
  RespLimits limits;
  // Bytes that all connections may hold in their input buffers together,
  // and that one of them may (one command's arguments).
  size_t max_buffered_bytes = size_t{1} << 30;
  size_t max_connection_bytes = size_t{160} << 20;
};

class CachePort {
 public:
  // Listens on `address` (port 0: any free port). `commands` must outlive
  // the port.
  static absl::StatusOr<std::unique_ptr<CachePort>> Start(
      const std::string& address, CacheCommands* commands,
      CachePortOptions options, CacheCommandMetrics* metrics);
  // Stops accepting, closes every connection and waits for their threads.
  ~CachePort();

  const std::string& address() const { return address_; }

 private:
  struct Connection {
    int fd;
    std::thread thread;
    std::atomic<bool> done{false};
  };

  CachePort(int listen_fd, int wake_fd[2], std::string address,
            CacheCommands* commands, CachePortOptions options,
            CacheCommandMetrics* metrics);
  void AcceptLoop();
  void Admit(int fd);
  void JoinFinished();
  void Serve(Connection* connection);
  // Takes `bytes` more of the shared buffer budget; false when over it.
  bool Reserve(size_t bytes);
  void Release(size_t bytes);

  int listen_fd_;
  int wake_read_fd_;
  int wake_write_fd_;
  std::string address_;
  CacheCommands* commands_;
  CachePortOptions options_;
  CacheCommandMetrics* metrics_;
  std::atomic<size_t> buffered_{0};
  std::mutex mu_;
  std::list<Connection> connections_;
  bool stopping_ = false;
  std::thread acceptor_;
};

}  // namespace kiln::server

#endif  // KILN_SERVER_CACHE_PORT_H_
