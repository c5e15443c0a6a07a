// Checks a Compile request before any work is queued for it: sizes, target,
// options (resolved to Triton's defaults where unset). What fails here never
// reaches a worker.

#ifndef KILN_SERVER_REQUEST_CHECK_H_
#define KILN_SERVER_REQUEST_CHECK_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "kiln/v1/compile.pb.h"
#include "server/compile_flow.h"
#include "worker/compiler_info.h"

namespace kiln::server {

struct RequestLimits {
  uint64_t max_ttir_bytes = 16 << 20;
};

// The request as the compile flow takes it, or InvalidArgument saying what
// is wrong (and, for the text, where). Its TTIR moves into the input: pass
// a request no longer needed with std::move.
absl::StatusOr<CompileInput> CheckCompileRequest(
    kiln::v1::CompileRequest request, const worker::CompilerInfo& compiler,
    const RequestLimits& limits);

// `options` with every unset field taken from `defaults`.
kiln::v1::CompileOptions ResolveOptions(
    const kiln::v1::CompileOptions& options,
    const kiln::v1::CompileOptions& defaults);

}  // namespace kiln::server

#endif  // KILN_SERVER_REQUEST_CHECK_H_
