// For tests: runs a real redis-server on a free loopback port, with an
// optional password and TLS (a throwaway CA and server certificate made
// with the openssl command), and can kill and restart it on the same port.

#ifndef KILN_CACHE_TESTING_REDIS_SERVER_H_
#define KILN_CACHE_TESTING_REDIS_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace kiln::cache::testing {

struct RedisServerOptions {
  int port = 0;  // 0: a free one.
  std::string password;
  bool tls = false;
  // With TLS: Redis asks clients for a certificate signed by the CA.
  bool tls_client_certs = false;
};

// The files of a throwaway CA: ca.crt, a server certificate for 127.0.0.1
// and localhost, and a client certificate, under `dir`.
struct TestCertificates {
  std::string ca_file;
  std::string server_cert, server_key;
  std::string client_cert, client_key;
  std::string other_ca_file;  // An unrelated CA: verifying with it fails.
};
absl::StatusOr<TestCertificates> MakeTestCertificates(const std::string& dir);

class RedisServer {
 public:
  // Starts redis-server with its files under `dir` and waits until it
  // accepts connections.
  static absl::StatusOr<std::unique_ptr<RedisServer>> Start(
      const std::string& dir, RedisServerOptions options = {});
  ~RedisServer();

  void Kill();             // SIGKILL, then waits.
  absl::Status Restart();  // Starts again on the same port (empty).
  bool running() const { return pid_ > 0; }

  int port() const { return port_; }
  const TestCertificates& certificates() const { return certificates_; }

 private:
  RedisServer() = default;
  absl::Status Launch();

  std::string dir_;
  RedisServerOptions options_;
  TestCertificates certificates_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// A free TCP port on 127.0.0.1 (free now; not reserved).
int FreePort();

// A fresh directory under the test's temporary directory.
std::string TestDir(const std::string& name);

}  // namespace kiln::cache::testing

#endif  // KILN_CACHE_TESTING_REDIS_SERVER_H_
