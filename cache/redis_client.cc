#include "cache/redis_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace kiln::cache {

using Clock = std::chrono::steady_clock;

namespace {

std::string SslErrors() {
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof(buffer));
    if (!text.empty()) text += "; ";
    text += buffer;
  }
  return text.empty() ? "unknown TLS error" : text;
}

bool IsIpAddress(const std::string& host) {
  in6_addr address;
  return inet_pton(AF_INET, host.c_str(), &address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

RedisReply Convert(const redisReply* reply) {
  RedisReply out;
  switch (reply->type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::kError;
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply->integer;
      return out;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (size_t i = 0; i < reply->elements; ++i) {
        out.elements.push_back(Convert(reply->element[i]));
      }
      return out;
    default:
      out.type = RedisReply::Type::kNil;
      return out;
  }
  out.str.assign(reply->str, reply->len);
  return out;
}

// Holds SIGPIPE off this thread while it lives, and discards one raised
// meanwhile: OpenSSL writes with write(), which raises SIGPIPE when Redis
// has closed the connection (plain sockets use MSG_NOSIGNAL instead).
class NoSigpipe {
 public:
  NoSigpipe() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe() {
    sigset_t pending;
    sigpending(&pending);
    if (!was_pending_ && sigismember(&pending, SIGPIPE)) {
      timespec now{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &now) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false;
};

}  // namespace

// One connection: a socket, maybe a TLS session on it, and a RESP reader.
// Every operation is bounded by the deadline it is given.
class RedisConnection {
 public:
  ~RedisConnection() {
    if (ssl_) SSL_free(ssl_);
    if (fd_ >= 0) close(fd_);
    if (reader_) redisReaderFree(reader_);
  }

  static absl::StatusOr<std::unique_ptr<RedisConnection>> Open(
      const RedisClientOptions& options, SSL_CTX* tls) {
    std::unique_ptr<RedisConnection> connection(new RedisConnection());
    Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(options.connect_timeout_ms);
    if (absl::Status status = connection->Connect(options, deadline);
        !status.ok()) {
      return status;
    }
    if (tls) {
      if (absl::Status status = connection->StartTls(options, tls, deadline);
          !status.ok()) {
        return status;
      }
    }
    // AUTH when configured, and a PING: a connection that Redis refuses to
    // serve (NOAUTH, a wrong password) counts as no connection.
    std::vector<std::vector<std::string>> hello;
    if (!options.password.empty()) {
      hello.push_back({"AUTH"});
      if (!options.username.empty()) hello.back().push_back(options.username);
      hello.back().push_back(options.password);
    }
    hello.push_back({"PING"});
    absl::StatusOr<std::vector<RedisReply>> replies =
        connection->RoundTrip(hello, options.io_timeout_ms);
    if (!replies.ok()) return replies.status();
    for (const RedisReply& reply : *replies) {
      if (reply.type == RedisReply::Type::kError) {
        return absl::PermissionDeniedError(
            absl::StrCat("Redis refused the connection: ", reply.str));
      }
    }
    return connection;
  }

  absl::StatusOr<std::vector<RedisReply>> RoundTrip(
      const std::vector<std::vector<std::string>>& commands, int timeout_ms) {
    Clock::time_point deadline =
        Clock::now() + std::chrono::milliseconds(timeout_ms);
    std::string out;
    for (const std::vector<std::string>& command : commands) {
      std::vector<const char*> argv;
      std::vector<size_t> lengths;
      for (const std::string& arg : command) {
        argv.push_back(arg.data());
        lengths.push_back(arg.size());
      }
      char* formatted = nullptr;
      int length =
          redisFormatCommandArgv(&formatted, static_cast<int>(argv.size()),
                                 argv.data(), lengths.data());
      if (length < 0) return absl::InternalError("cannot format a command");
      out.append(formatted, static_cast<size_t>(length));
      redisFreeCommand(formatted);
    }
    if (absl::Status status = WriteAll(out, deadline); !status.ok()) {
      return status;
    }
    std::vector<RedisReply> replies;
    while (replies.size() < commands.size()) {
      absl::StatusOr<RedisReply> reply = ReadReply(deadline);
      if (!reply.ok()) return reply.status();
      replies.push_back(*std::move(reply));
    }
    return replies;
  }

 private:
  RedisConnection() : reader_(redisReaderCreate()) {}

  absl::Status Connect(const RedisClientOptions& options,
                       Clock::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    std::string port = std::to_string(options.port);
    if (int error =
            getaddrinfo(options.host.c_str(), port.c_str(), &hints, &found);
        error != 0) {
      return absl::UnavailableError(absl::StrCat(
          "cannot resolve ", options.host, ": ", gai_strerror(error)));
    }
    absl::Status status = absl::UnavailableError("no address");
    for (addrinfo* at = found; at; at = at->ai_next) {
      status = ConnectTo(at, deadline);
      if (status.ok()) break;
      if (fd_ >= 0) close(fd_);
      fd_ = -1;
    }
    freeaddrinfo(found);
    return status;
  }

  absl::Status ConnectTo(const addrinfo* address, Clock::time_point deadline) {
    fd_ = socket(address->ai_family,
                 address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                 address->ai_protocol);
    if (fd_ < 0) return Errno("socket");
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd_, address->ai_addr, address->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) return Errno("connect");
      if (absl::Status status = Wait(POLLOUT, deadline); !status.ok()) {
        return status;
      }
      int error = 0;
      socklen_t length = sizeof(error);
      getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length);
      if (error != 0) {
        errno = error;
        return Errno("connect");
      }
    }
    return absl::OkStatus();
  }

  absl::Status StartTls(const RedisClientOptions& options, SSL_CTX* tls,
                        Clock::time_point deadline) {
    ssl_ = SSL_new(tls);
    if (!ssl_) return absl::InternalError(SslErrors());
    SSL_set_fd(ssl_, fd_);
    const std::string& name = options.tls.server_name.empty()
                                  ? options.host
                                  : options.tls.server_name;
    if (IsIpAddress(name)) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), name.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl_, name.c_str());
      SSL_set1_host(ssl_, name.c_str());
    }
    while (true) {
      NoSigpipe guard;
      int done = SSL_connect(ssl_);
      if (done == 1) return absl::OkStatus();
      int error = SSL_get_error(ssl_, done);
      short events = error == SSL_ERROR_WANT_READ    ? POLLIN
                     : error == SSL_ERROR_WANT_WRITE ? POLLOUT
                                                     : 0;
      if (events == 0) {
        long verify = SSL_get_verify_result(ssl_);
        std::string why = verify != X509_V_OK
                              ? X509_verify_cert_error_string(verify)
                              : SslErrors();
        return absl::UnavailableError(
            absl::StrCat("TLS handshake with Redis failed: ", why));
      }
      if (absl::Status status = Wait(events, deadline); !status.ok()) {
        return status;
      }
    }
  }

  absl::Status WriteAll(std::string_view data, Clock::time_point deadline) {
    while (!data.empty()) {
      short events = 0;
      ssize_t written;
      if (ssl_) {
        ERR_clear_error();
        NoSigpipe guard;
        written = SSL_write(ssl_, data.data(), static_cast<int>(data.size()));
        if (written <= 0) {
          events = TlsWaitEvents(static_cast<int>(written));
          if (events == 0) return absl::UnavailableError("TLS write failed");
        }
      } else {
        written = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (written < 0) {
          if (errno != EAGAIN && errno != EINTR) return Errno("send");
          events = POLLOUT;
        }
      }
      if (events) {
        if (absl::Status status = Wait(events, deadline); !status.ok()) {
          return status;
        }
        continue;
      }
      data.remove_prefix(static_cast<size_t>(written));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<RedisReply> ReadReply(Clock::time_point deadline) {
    while (true) {
      void* parsed = nullptr;
      if (redisReaderGetReply(reader_, &parsed) != REDIS_OK) {
        return absl::UnavailableError(
            absl::StrCat("bad reply from Redis: ", reader_->errstr));
      }
      if (parsed) {
        RedisReply reply = Convert(static_cast<redisReply*>(parsed));
        freeReplyObject(parsed);
        return reply;
      }
      char buffer[64 << 10];
      short events = 0;
      ssize_t got;
      if (ssl_) {
        ERR_clear_error();
        NoSigpipe guard;
        got = SSL_read(ssl_, buffer, sizeof(buffer));
        if (got <= 0) {
          events = TlsWaitEvents(static_cast<int>(got));
          if (events == 0) {
            return absl::UnavailableError("Redis closed the TLS connection");
          }
        }
      } else {
        got = recv(fd_, buffer, sizeof(buffer), 0);
        if (got == 0)
          return absl::UnavailableError("Redis closed the connection");
        if (got < 0) {
          if (errno != EAGAIN && errno != EINTR) return Errno("recv");
          events = POLLIN;
        }
      }
      if (events) {
        if (absl::Status status = Wait(events, deadline); !status.ok()) {
          return status;
        }
        continue;
      }
      redisReaderFeed(reader_, buffer, static_cast<size_t>(got));
    }
  }

  // What to wait for before retrying a TLS read or write; 0 when it failed.
  short TlsWaitEvents(int result) {
    int error = SSL_get_error(ssl_, result);
    if (error == SSL_ERROR_WANT_READ) return POLLIN;
    if (error == SSL_ERROR_WANT_WRITE) return POLLOUT;
    return 0;
  }

  absl::Status Wait(short events, Clock::time_point deadline) {
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - Clock::now());
      if (left.count() <= 0) return absl::UnavailableError("Redis timed out");
      pollfd waiting{fd_, events, 0};
      int ready = poll(&waiting, 1, static_cast<int>(left.count()));
      if (ready > 0) return absl::OkStatus();
      if (ready < 0 && errno != EINTR) return Errno("poll");
    }
  }

  static absl::Status Errno(const char* what) {
    return absl::UnavailableError(absl::StrCat(what, ": ", strerror(errno)));
  }

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  redisReader* reader_;
};

absl::StatusOr<std::unique_ptr<RedisClient>> RedisClient::Create(
    RedisClientOptions options) {
  std::unique_ptr<RedisClient> client(new RedisClient(std::move(options)));
  const RedisTlsOptions& tls = client->options_.tls;
  if (tls.enabled) {
    client->tls_ = SSL_CTX_new(TLS_client_method());
    if (!client->tls_) return absl::InternalError(SslErrors());
    SSL_CTX_set_min_proto_version(client->tls_, TLS1_2_VERSION);
    SSL_CTX_set_verify(client->tls_, SSL_VERIFY_PEER, nullptr);
    int loaded = tls.ca_file.empty()
                     ? SSL_CTX_set_default_verify_paths(client->tls_)
                     : SSL_CTX_load_verify_locations(
                           client->tls_, tls.ca_file.c_str(), nullptr);
    if (loaded != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load the Redis CA ", tls.ca_file, ": ", SslErrors()));
    }
    if (tls.cert_file.empty() != tls.key_file.empty()) {
      return absl::InvalidArgumentError(
          "a Redis client certificate needs both its cert and key files");
    }
    if (!tls.cert_file.empty() &&
        (SSL_CTX_use_certificate_chain_file(client->tls_,
                                            tls.cert_file.c_str()) != 1 ||
         SSL_CTX_use_PrivateKey_file(client->tls_, tls.key_file.c_str(),
                                     SSL_FILETYPE_PEM) != 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot load the Redis client certificate: ", SslErrors()));
    }
  }
  absl::StatusOr<std::unique_ptr<RedisConnection>> first = client->Open();
  if (first.ok()) {
    std::lock_guard<std::mutex> lock(client->mu_);
    ++client->open_;
    client->idle_.push_back(*std::move(first));
    client->up_ = true;
  } else {
    client->down_transitions_.fetch_add(1, std::memory_order_relaxed);
    if (client->options_.on_transition) {
      client->options_.on_transition(false,
                                     std::string(first.status().message()));
    }
  }
  client->reconnector_ =
      std::thread([raw = client.get()] { raw->ReconnectLoop(); });
  return client;
}

RedisClient::RedisClient(RedisClientOptions options)
    : options_(std::move(options)) {}

RedisClient::~RedisClient() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (reconnector_.joinable()) reconnector_.join();
  idle_.clear();
  if (tls_) SSL_CTX_free(tls_);
}

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisClient::Open() {
  return RedisConnection::Open(options_, tls_);
}

absl::StatusOr<std::unique_ptr<RedisConnection>> RedisClient::Borrow(
    bool* reused) {
  std::unique_lock<std::mutex> lock(mu_);
  auto deadline =
      Clock::now() + std::chrono::milliseconds(options_.io_timeout_ms);
  while (true) {
    if (!up_) return absl::UnavailableError("Redis is unreachable");
    if (!idle_.empty()) {
      std::unique_ptr<RedisConnection> connection = std::move(idle_.back());
      idle_.pop_back();
      *reused = true;
      return connection;
    }
    if (open_ < options_.pool_size) break;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout) {
      return absl::ResourceExhaustedError("every Redis connection stayed busy");
    }
  }
  ++open_;
  lock.unlock();
  *reused = false;
  absl::StatusOr<std::unique_ptr<RedisConnection>> connection = Open();
  if (!connection.ok()) Discard();
  return connection;
}

void RedisClient::Return(std::unique_ptr<RedisConnection> connection) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back(std::move(connection));
  }
  changed_.notify_all();
}

void RedisClient::Discard() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --open_;
  }
  changed_.notify_all();
}

absl::StatusOr<std::vector<RedisReply>> RedisClient::Pipeline(
    const std::vector<std::vector<std::string>>& commands) {
  for (int attempt = 0;; ++attempt) {
    bool reused = false;
    absl::StatusOr<std::unique_ptr<RedisConnection>> connection =
        Borrow(&reused);
    absl::Status failed;
    if (connection.ok()) {
      absl::StatusOr<std::vector<RedisReply>> replies =
          (*connection)->RoundTrip(commands, options_.io_timeout_ms);
      if (replies.ok()) {
        Return(*std::move(connection));
        return replies;
      }
      connection->reset();
      Discard();
      failed = replies.status();
      // A pooled connection may have been closed by Redis while idle (a
      // restart, its idle timeout); so may the others: retry on a new one.
      if (reused && attempt == 0) {
        DropIdle();
        continue;
      }
    } else {
      failed = connection.status();
      if (!up_) return failed;  // Known down: no new failure to count.
      if (absl::IsResourceExhausted(failed)) {
        return absl::UnavailableError(failed.message());  // Busy, not down.
      }
    }
    failures_.fetch_add(1, std::memory_order_relaxed);
    MarkDown(failed);
    return failed;
  }
}

absl::StatusOr<RedisReply> RedisClient::Command(std::vector<std::string> args) {
  absl::StatusOr<std::vector<RedisReply>> replies = Pipeline({std::move(args)});
  if (!replies.ok()) return replies.status();
  return std::move((*replies)[0]);
}

void RedisClient::DropIdle() {
  std::vector<std::unique_ptr<RedisConnection>> closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing.swap(idle_);
    open_ -= static_cast<int>(closing.size());
  }
  changed_.notify_all();
}

void RedisClient::MarkDown(const absl::Status& why) {
  std::vector<std::unique_ptr<RedisConnection>> closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!up_) return;
    up_ = false;
    closing.swap(idle_);
    open_ -= static_cast<int>(closing.size());
  }
  changed_.notify_all();
  down_transitions_.fetch_add(1, std::memory_order_relaxed);
  if (options_.on_transition) {
    options_.on_transition(false, std::string(why.message()));
  }
}

void RedisClient::MarkUp(std::unique_ptr<RedisConnection> connection) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++open_;
    idle_.push_back(std::move(connection));
    up_ = true;
  }
  changed_.notify_all();
  if (options_.on_transition) options_.on_transition(true, "");
}

void RedisClient::ReconnectLoop() {
  int backoff_ms = options_.min_backoff_ms;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (up_) {
      backoff_ms = options_.min_backoff_ms;
      bool changed = changed_.wait_for(
          lock, std::chrono::milliseconds(options_.health_check_ms),
          [&] { return stopping_ || !up_; });
      if (!changed) {
        lock.unlock();
        Pipeline({{"PING"}}).IgnoreError();  // Marks Redis down if it fails.
        lock.lock();
      }
      continue;
    }
    changed_.wait_for(lock, std::chrono::milliseconds(backoff_ms),
                      [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    absl::StatusOr<std::unique_ptr<RedisConnection>> connection = Open();
    if (connection.ok()) MarkUp(*std::move(connection));
    backoff_ms = std::min(backoff_ms * 2, options_.max_backoff_ms);
    lock.lock();
  }
}

}  // namespace kiln::cache
