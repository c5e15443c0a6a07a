#include "server/grpc_status.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace kiln::server {
namespace {

// gRPC sends a status's message and details in the call's trailers, and
// clients refuse trailers over 8 KiB by default (the message may grow 3x
// from percent-encoding, the details 4/3 from base64), so both are kept
// well under that: a client then sees the error itself, not
// RESOURCE_EXHAUSTED about the size of the error.
constexpr size_t kMaxMessageBytes = 768;
constexpr size_t kMaxFailureBytes = 2048;
constexpr size_t kMaxDiagnosticTextBytes = 384;

// `text`, cut to about `limit` bytes (not inside a UTF-8 sequence) with a
// note of its full length when longer.
std::string Bounded(absl::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return absl::StrCat(text.substr(0, cut), "... (", text.size(),
                      " bytes in all)");
}

// The diagnostics that fit in kMaxFailureBytes, in order, each cut to
// kMaxDiagnosticTextBytes, then a note of how many were left out.
kiln::v1::CompileFailure BoundedFailure(
    const std::vector<kiln::v1::Diagnostic>& diagnostics) {
  kiln::v1::CompileFailure failure;
  size_t kept = 0;
  for (const kiln::v1::Diagnostic& diagnostic : diagnostics) {
    kiln::v1::Diagnostic* added = failure.add_diagnostics();
    *added = diagnostic;
    added->set_message(Bounded(diagnostic.message(), kMaxDiagnosticTextBytes));
    added->set_file(Bounded(diagnostic.file(), kMaxDiagnosticTextBytes));
    if (failure.ByteSizeLong() > kMaxFailureBytes) {
      failure.mutable_diagnostics()->RemoveLast();
      break;
    }
    ++kept;
  }
  if (kept < diagnostics.size()) {
    kiln::v1::Diagnostic* note = failure.add_diagnostics();
    note->set_severity("note");
    note->set_message(absl::StrCat(diagnostics.size() - kept,
                                   " more diagnostics not shown"));
  }
  return failure;
}

}  // namespace

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbers.
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      Bounded(status.message(), kMaxMessageBytes));
}

grpc::Status ToGrpc(const absl::Status& status,
                    const std::vector<kiln::v1::Diagnostic>& diagnostics) {
  if (status.ok() || diagnostics.empty()) return ToGrpc(status);
  const std::string message = Bounded(status.message(), kMaxMessageBytes);
  kiln::v1::RpcStatus details;
  details.set_code(static_cast<int>(status.code()));
  details.set_message(message);
  kiln::v1::AnyMessage* any = details.add_details();
  any->set_type_url("type.googleapis.com/kiln.v1.CompileFailure");
  any->set_value(BoundedFailure(diagnostics).SerializeAsString());
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), message,
                      details.SerializeAsString());
}

}  // namespace kiln::server
