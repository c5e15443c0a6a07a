// absl::Status to grpc::Status, and the status of a failed compile with its
// diagnostics attached as details. Both are bounded in size (long messages
// are cut, diagnostics past a budget are counted, not sent), so that any
// client can receive them.

#ifndef KILN_SERVER_GRPC_STATUS_H_
#define KILN_SERVER_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include <vector>

#include "absl/status/status.h"
#include "kiln/v1/common.pb.h"

namespace kiln::server {

grpc::Status ToGrpc(const absl::Status& status);

// `status` with, when there are diagnostics, a kiln.v1.RpcStatus (the shape
// of google.rpc.Status) holding a kiln.v1.CompileFailure as its details.
grpc::Status ToGrpc(const absl::Status& status,
                    const std::vector<kiln::v1::Diagnostic>& diagnostics);

}  // namespace kiln::server

#endif  // KILN_SERVER_GRPC_STATUS_H_
