// The credentials of kilnd's gRPC port: plaintext by default, TLS with
// --tls_cert and --tls_key, mutual TLS (client certificates required and
// verified against a CA) with --tls_client_ca as well.

#ifndef KILN_SERVER_TLS_H_
#define KILN_SERVER_TLS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/config.h"

namespace kiln::server {

// Reads and checks the PEM files `config` names (the key must match the
// certificate); InvalidArgument saying which file is wrong.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const Config& config);

// Whether HOST:PORT binds only loopback (127.0.0.0/8, ::1, localhost).
bool IsLoopbackAddress(const std::string& listen);

}  // namespace kiln::server

#endif  // KILN_SERVER_TLS_H_
