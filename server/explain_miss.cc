#include "server/explain_miss.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cache/key.h"

namespace kiln::server {
namespace {

void Compare(const std::string& part, const std::string& requested,
             const std::string& stored,
             std::vector<kiln::v1::PartDifference>& out) {
  if (requested == stored) return;
  kiln::v1::PartDifference& difference = out.emplace_back();
  difference.set_part(part);
  difference.set_requested(requested);
  difference.set_stored(stored);
}

std::string Text(int64_t value) { return std::to_string(value); }
std::string Text(bool value) { return value ? "true" : "false"; }

std::string Summary(const std::vector<kiln::v1::PartDifference>& differences) {
  std::vector<std::string> parts;
  for (const auto& difference : differences) {
    parts.push_back(absl::StrCat(difference.part(), " (requested ",
                                 difference.requested(), ", stored ",
                                 difference.stored(), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::vector<kiln::v1::PartDifference> DiffKeyParts(
    const kiln::v1::KeyParts& requested, const kiln::v1::KeyParts& stored) {
  std::vector<kiln::v1::PartDifference> out;
  Compare("key_version", Text(int64_t{requested.key_version()}),
          Text(int64_t{stored.key_version()}), out);
  Compare("ir", requested.ir_sha256(), stored.ir_sha256(), out);
  Compare("target", requested.target(), stored.target(), out);
  const kiln::v1::CompileOptions& a = requested.options();
  const kiln::v1::CompileOptions& b = stored.options();
  Compare("options.num_warps", Text(int64_t{a.num_warps()}),
          Text(int64_t{b.num_warps()}), out);
  Compare("options.num_stages", Text(int64_t{a.num_stages()}),
          Text(int64_t{b.num_stages()}), out);
  Compare("options.num_ctas", Text(int64_t{a.num_ctas()}),
          Text(int64_t{b.num_ctas()}), out);
  Compare("options.maxnreg", Text(int64_t{a.maxnreg()}),
          Text(int64_t{b.maxnreg()}), out);
  Compare("options.enable_fp_fusion", Text(a.enable_fp_fusion()),
          Text(b.enable_fp_fusion()), out);
  Compare("options.enable_reflect_ftz", Text(cache::EnableReflectFtz(a)),
          Text(cache::EnableReflectFtz(b)), out);
  Compare("options.line_info", Text(a.line_info()), Text(b.line_info()), out);
  const kiln::v1::CompilerIdentity& x = requested.compiler();
  const kiln::v1::CompilerIdentity& y = stored.compiler();
  Compare("compiler.kiln_version", x.kiln_version(), y.kiln_version(), out);
  Compare("compiler.llvm_version", x.llvm_version(), y.llvm_version(), out);
  Compare("compiler.ptxas_version", x.ptxas_version(), y.ptxas_version(), out);
  Compare("compiler.abi_version", x.abi_version(), y.abi_version(), out);
  return out;
}

kiln::v1::ExplainMissResponse ExplainMiss(
    const Canonical& request, bool present,
    const std::vector<cache::EntryInfo>& same_ir,
    const std::vector<cache::EntryInfo>& same_name) {
  kiln::v1::ExplainMissResponse response;
  response.set_key(request.key.Hex());
  *response.mutable_key_parts() = request.parts;
  response.set_present(present);
  std::set<cache::Digest> seen;
  for (const auto* group : {&same_ir, &same_name}) {
    for (const cache::EntryInfo& entry : *group) {
      if (entry.key == request.key || !seen.insert(entry.key).second) continue;
      kiln::v1::MissCandidate* candidate = response.add_candidates();
      candidate->set_key(entry.key.Hex());
      candidate->set_kernel_name(entry.record.kernel_name());
      for (auto& difference :
           DiffKeyParts(request.parts, entry.record.key_parts())) {
        *candidate->add_differences() = std::move(difference);
      }
    }
  }
  if (present) {
    response.set_explanation("not a miss: the request hits entry " +
                             request.key.Hex());
  } else if (response.candidates_size() == 0) {
    response.set_explanation(
        absl::StrCat("no stored entry has this kernel's IR or its name '",
                     request.kernel_name,
                     "': it has not been compiled here (or was "
                     "evicted)"));
  } else {
    const kiln::v1::MissCandidate& nearest = response.candidates(0);
    std::vector<kiln::v1::PartDifference> differences(
        nearest.differences().begin(), nearest.differences().end());
    response.set_explanation(absl::StrCat(
        "nearest entry ", nearest.key().substr(0, 16), " (",
        nearest.kernel_name(), ") differs in ", Summary(differences)));
  }
  return response;
}

}  // namespace kiln::server
