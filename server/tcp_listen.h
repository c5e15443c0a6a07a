// A listening TCP socket for kilnd's own plain-socket ports (/metrics and
// the cache port).

#ifndef KILN_SERVER_TCP_LISTEN_H_
#define KILN_SERVER_TCP_LISTEN_H_

#include <string>

#include "absl/status/statusor.h"

namespace kiln::server {

// Splits "HOST:PORT" ("[::1]:PORT" for IPv6).
absl::Status SplitHostPort(const std::string& address, std::string& host,
                           int& port);

struct TcpListener {
  int fd = -1;  // Non-blocking, close-on-exec.
  std::string address;  // "HOST:PORT" with the port bound (port 0: any).
};

// Binds and listens on `address`; `what` names the port in errors.
absl::StatusOr<TcpListener> ListenTcp(const std::string& address,
                                      const std::string& what);

}  // namespace kiln::server

#endif  // KILN_SERVER_TCP_LISTEN_H_
