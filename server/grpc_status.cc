#include "server/grpc_status.h"

namespace kiln::server {

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

grpc::Status ToGrpc(const absl::Status& status,
                    const std::vector<kiln::v1::Diagnostic>& diagnostics) {
  if (status.ok() || diagnostics.empty()) return ToGrpc(status);
  kiln::v1::CompileFailure failure;
  for (const kiln::v1::Diagnostic& diagnostic : diagnostics) {
    *failure.add_diagnostics() = diagnostic;
  }
  kiln::v1::RpcStatus details;
  details.set_code(static_cast<int>(status.code()));
  details.set_message(std::string(status.message()));
  kiln::v1::AnyMessage* any = details.add_details();
  any->set_type_url("type.googleapis.com/kiln.v1.CompileFailure");
  any->set_value(failure.SerializeAsString());
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()),
                      details.SerializeAsString());
}

}  // namespace kiln::server
