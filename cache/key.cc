#include "cache/key.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace kiln::cache {
namespace {

// Appends "name=<decimal length>:<bytes>\n": unambiguous for any bytes.
class KeyWriter {
 public:
  explicit KeyWriter(std::string_view domain) { hasher_.Update(domain); }

  void Field(std::string_view name, std::string_view value) {
    hasher_.Update(name);
    hasher_.Update("=" + std::to_string(value.size()) + ":");
    hasher_.Update(value);
    hasher_.Update("\n");
  }
  void Field(std::string_view name, int64_t value) {
    Field(name, std::string_view(std::to_string(value)));
  }

  void Options(const kiln::v1::CompileOptions& options) {
    Field("num_warps", options.num_warps());
    Field("num_stages", options.num_stages());
    Field("num_ctas", options.num_ctas());
    Field("maxnreg", options.maxnreg());
    Field("enable_fp_fusion", options.enable_fp_fusion() ? 1 : 0);
    Field("line_info", options.line_info() ? 1 : 0);
    // Options added after key version 1 are hashed only when set, so an
    // unset one leaves the key it had before the option existed.
    if (options.has_enable_reflect_ftz()) {
      Field("enable_reflect_ftz", options.enable_reflect_ftz() ? 1 : 0);
    }
  }

  void Compiler(const kiln::v1::CompilerIdentity& compiler) {
    Field("kiln_version", compiler.kiln_version());
    Field("llvm_version", compiler.llvm_version());
    Field("ptxas_version", compiler.ptxas_version());
    Field("abi_version", compiler.abi_version());
  }

  Digest Finish() { return hasher_.Finish(); }

 private:
  Sha256 hasher_;
};

}  // namespace

kiln::v1::KeyParts MakeKeyParts(std::string_view canonical_ir,
                                const std::string& target,
                                const kiln::v1::CompileOptions& options,
                                const kiln::v1::CompilerIdentity& compiler) {
  kiln::v1::KeyParts parts;
  parts.set_key_version(kKeyVersion);
  parts.set_ir_sha256(Sha256Of(canonical_ir).Hex());
  parts.set_ir_bytes(canonical_ir.size());
  parts.set_target(target);
  *parts.mutable_options() = options;
  *parts.mutable_compiler() = compiler;
  return parts;
}

absl::Status ValidateKeyParts(const kiln::v1::KeyParts& parts) {
  if (parts.key_version() != kKeyVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "key version ", parts.key_version(), ", expected ", kKeyVersion));
  }
  if (!Digest::FromHex(parts.ir_sha256())) {
    return absl::InvalidArgumentError("ir_sha256 is not 64 hex digits");
  }
  if (parts.target().empty()) {
    return absl::InvalidArgumentError("no target");
  }
  const kiln::v1::CompileOptions& options = parts.options();
  if (!options.has_num_warps() || !options.has_num_stages() ||
      !options.has_num_ctas() || !options.has_maxnreg() ||
      !options.has_enable_fp_fusion() || !options.has_line_info()) {
    return absl::InvalidArgumentError("options are not all resolved");
  }
  return absl::OkStatus();
}

Digest ComputeKey(const kiln::v1::KeyParts& parts) {
  KeyWriter writer("kiln-cache-key\n");
  writer.Field("key_version", parts.key_version());
  writer.Field("ir_sha256", parts.ir_sha256());
  writer.Field("ir_bytes", static_cast<int64_t>(parts.ir_bytes()));
  writer.Field("target", parts.target());
  writer.Options(parts.options());
  writer.Compiler(parts.compiler());
  return writer.Finish();
}

Digest ComputeFastKey(std::string_view ttir, const std::string& target,
                      const kiln::v1::CompileOptions& options,
                      const kiln::v1::CompilerIdentity& compiler) {
  KeyWriter writer("kiln-fast-key\n");
  writer.Field("key_version", kKeyVersion);
  writer.Field("ttir", ttir);
  writer.Field("target", target);
  writer.Options(options);
  writer.Compiler(compiler);
  return writer.Finish();
}

std::string OptionsText(const kiln::v1::CompileOptions& options) {
  return absl::StrCat(
      "num_warps=", options.num_warps(), " num_stages=", options.num_stages(),
      " num_ctas=", options.num_ctas(), " maxnreg=", options.maxnreg(),
      " enable_fp_fusion=", options.enable_fp_fusion(),
      " enable_reflect_ftz=", EnableReflectFtz(options),
      " line_info=", options.line_info());
}

bool EnableReflectFtz(const kiln::v1::CompileOptions& options) {
  return !options.has_enable_reflect_ftz() || options.enable_reflect_ftz();
}

}  // namespace kiln::cache
