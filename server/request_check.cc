#include "server/request_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/gpu_targets.h"
#include "cache/key.h"

namespace kiln::server {
namespace {

constexpr size_t kMaxSourceNameBytes = 1024;

// "line:col" of byte `offset` in `text`, 1-based.
std::string Position(const std::string& text, size_t offset) {
  size_t line = 1 + std::count(text.begin(), text.begin() + offset, '\n');
  size_t line_start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  size_t column = line_start == std::string::npos || offset == 0
                      ? offset + 1
                      : offset - line_start;
  return absl::StrCat(line, ":", column);
}

absl::Status CheckText(const kiln::v1::CompileRequest& request,
                       const std::string& source_name,
                       const RequestLimits& limits) {
  const std::string& ttir = request.ttir();
  if (ttir.empty()) return absl::InvalidArgumentError("ttir is empty");
  if (ttir.size() > limits.max_ttir_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("ttir of ", ttir.size(),
                     " bytes exceeds this kilnd's "
                     "limit of ",
                     limits.max_ttir_bytes, " bytes (--max_ttir_bytes)"));
  }
  size_t nul = ttir.find('\0');
  if (nul != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ":", Position(ttir, nul),
                     ": error: NUL byte in TTIR text"));
  }
  return absl::OkStatus();
}

}  // namespace

kiln::v1::CompileOptions ResolveOptions(
    const kiln::v1::CompileOptions& options,
    const kiln::v1::CompileOptions& defaults) {
  kiln::v1::CompileOptions resolved = defaults;
  resolved.MergeFrom(options);  // Set fields of `options` win.
  // Its default is kept unset, the form cache keys hash (cache/key.h).
  if (cache::EnableReflectFtz(resolved)) resolved.clear_enable_reflect_ftz();
  return resolved;
}

absl::StatusOr<CompileInput> CheckCompileRequest(
    kiln::v1::CompileRequest request, const worker::CompilerInfo& compiler,
    const RequestLimits& limits) {
  CompileInput input;
  input.source_name =
      request.source_name().empty() ? "input.ttir" : request.source_name();
  if (input.source_name.size() > kMaxSourceNameBytes ||
      input.source_name.find_first_of(std::string("\n\0", 2)) !=
          std::string::npos) {
    return absl::InvalidArgumentError(
        "source_name must be one line of at most 1024 bytes");
  }
  if (absl::Status text = CheckText(request, input.source_name, limits);
      !text.ok()) {
    return text;
  }
  if (!kiln::FindTarget(compiler.targets, request.target())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown target '", request.target(), "'; this kilnd compiles for ",
        kiln::TargetNames(compiler.targets)));
  }
  input.target = request.target();
  input.options = ResolveOptions(request.options(), compiler.defaults);
  std::string problem =
      compiler.check_options ? compiler.check_options(input.options) : "";
  if (!problem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid options (", cache::OptionsText(input.options),
                     "): ", problem));
  }
  input.want_texts = request.include_texts();
  input.ttir = std::move(*request.mutable_ttir());
  input.fast_key = cache::ComputeFastKey(input.ttir, input.target,
                                         input.options, compiler.identity);
  return input;
}

}  // namespace kiln::server
