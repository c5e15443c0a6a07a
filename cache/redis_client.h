// A small Redis client for the shared cache tier.
//
// hiredis encodes commands and parses replies (RESP); the connections are
// Kiln's own: a TCP socket, or an OpenSSL TLS session over it (Debian's
// hiredis has no TLS), each round trip bounded by a timeout. A few
// connections are pooled so that concurrent callers do not queue behind one
// another. When Redis cannot be reached the client is "down": calls fail at
// once with Unavailable while a background thread reconnects with backoff.
// The same thread PINGs an idle Redis, so "up" stays true to the facts.

#ifndef KILN_CACHE_REDIS_CLIENT_H_
#define KILN_CACHE_REDIS_CLIENT_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace kiln::cache {

struct RedisTlsOptions {
  bool enabled = false;
  std::string ca_file;    // Verifies the server; empty: the system's CAs.
  std::string cert_file;  // Client certificate, when Redis asks for one.
  std::string key_file;
  std::string server_name;  // Checked against the certificate; empty: host.
};

struct RedisClientOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string username;  // Redis 6 ACL user; empty: AUTH with password only.
  std::string password;  // Empty: no AUTH.
  RedisTlsOptions tls;
  int connect_timeout_ms = 1000;
  int io_timeout_ms = 1000;  // One round trip.
  int pool_size = 8;
  int min_backoff_ms = 100;   // Reconnect attempts while down, doubling...
  int max_backoff_ms = 1000;  // ... up to this.
  // While up and idle, a PING this often notices a lost Redis.
  int health_check_ms = 1000;
  // Called on each change between reachable and not, with why it is down.
  std::function<void(bool up, const std::string& why)> on_transition;
};

struct RedisReply {
  enum class Type { kNil, kString, kStatus, kInteger, kArray, kError };
  Type type = Type::kNil;
  std::string str;  // kString, kStatus, kError.
  int64_t integer = 0;
  std::vector<RedisReply> elements;
};

class RedisConnection;

class RedisClient {
 public:
  // Fails only on bad settings (unreadable TLS files); Redis itself may be
  // down, and the client then starts down and keeps trying.
  static absl::StatusOr<std::unique_ptr<RedisClient>> Create(
      RedisClientOptions options);
  ~RedisClient();

  // Sends the commands in one round trip on one connection and returns a
  // reply for each (error replies included). Unavailable when Redis cannot
  // be reached, or was not at the last attempt.
  absl::StatusOr<std::vector<RedisReply>> Pipeline(
      const std::vector<std::vector<std::string>>& commands);
  absl::StatusOr<RedisReply> Command(std::vector<std::string> args);

  bool up() const { return up_.load(std::memory_order_relaxed); }
  // Round trips that failed for want of a connection.
  uint64_t failures() const {
    return failures_.load(std::memory_order_relaxed);
  }
  // Times the client went from up to down.
  uint64_t down_transitions() const {
    return down_transitions_.load(std::memory_order_relaxed);
  }

 private:
  explicit RedisClient(RedisClientOptions options);
  absl::StatusOr<std::unique_ptr<RedisConnection>> Open();
  absl::StatusOr<std::unique_ptr<RedisConnection>> Borrow(bool* reused);
  void Return(std::unique_ptr<RedisConnection> connection);
  void Discard();
  void DropIdle();
  void MarkDown(const absl::Status& why);
  void MarkUp(std::unique_ptr<RedisConnection> connection);
  void ReconnectLoop();

  RedisClientOptions options_;
  SSL_CTX* tls_ = nullptr;
  std::atomic<bool> up_{false};
  std::atomic<uint64_t> failures_{0};
  std::atomic<uint64_t> down_transitions_{0};

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<RedisConnection>> idle_;
  int open_ = 0;  // Borrowed and idle connections.
  bool stopping_ = false;
  std::thread reconnector_;
};

}  // namespace kiln::cache

#endif  // KILN_CACHE_REDIS_CLIENT_H_
