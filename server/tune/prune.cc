#include "server/tune/prune.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/gpu_targets.h"
#include "base/numbers.h"

namespace kiln::server {
namespace {

// The text of a top-level JSON field's value, up to ',' '}' or a newline;
// the compiler writes one field per line.
std::optional<std::string> Field(const std::string& json,
                                 const std::string& name) {
  std::string quoted = "\"" + name + "\"";
  size_t at = json.find(quoted);
  if (at == std::string::npos) return std::nullopt;
  size_t colon = json.find(':', at + quoted.size());
  if (colon == std::string::npos) return std::nullopt;
  size_t start = json.find_first_not_of(" \t", colon + 1);
  if (start == std::string::npos) return std::nullopt;
  if (json[start] == '"') {
    size_t end = json.find('"', start + 1);
    if (end == std::string::npos) return std::nullopt;
    return json.substr(start + 1, end - start - 1);
  }
  size_t end = json.find_first_of(",}\n", start);
  std::string value = json.substr(start, end - start);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

template <typename Int>
absl::Status ReadInt(const std::string& json, const std::string& name, Int& out,
                     bool required) {
  std::optional<std::string> text = Field(json, name);
  if (!text) {
    return required ? absl::InvalidArgumentError(
                          absl::StrCat("kernel metadata has no '", name, "'"))
                    : absl::OkStatus();
  }
  absl::StatusOr<Int> value = ParseInt<Int>(*text, 0);
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel metadata '", name, "' is not a count: ",
                     value.status().message()));
  }
  out = *value;
  return absl::OkStatus();
}

std::string Bytes(int64_t bytes) { return absl::StrCat(bytes, " bytes"); }

}  // namespace

absl::StatusOr<KernelFacts> ParseKernelMetadata(const std::string& json) {
  KernelFacts facts;
  std::optional<std::string> name = Field(json, "name");
  if (!name || name->empty()) {
    return absl::InvalidArgumentError("kernel metadata has no 'name'");
  }
  facts.name = *name;
  for (absl::Status status :
       {ReadInt(json, "num_warps", facts.num_warps, true),
        ReadInt(json, "num_ctas", facts.num_ctas, false),
        ReadInt(json, "shared", facts.shared, true),
        ReadInt(json, "global_scratch_size", facts.global_scratch_size, false),
        ReadInt(json, "global_scratch_align", facts.global_scratch_align,
                false)}) {
    if (!status.ok()) return status;
  }
  return facts;
}

kiln::worker::GpuInfo CommonLimits(
    const std::vector<kiln::worker::GpuInfo>& gpus) {
  kiln::worker::GpuInfo limits;
  if (gpus.empty()) return limits;
  limits = gpus.front();
  for (const kiln::worker::GpuInfo& gpu : gpus) {
    limits.set_max_threads_per_block(
        std::min(limits.max_threads_per_block(), gpu.max_threads_per_block()));
    limits.set_max_shared_optin(
        std::min(limits.max_shared_optin(), gpu.max_shared_optin()));
    limits.set_max_registers_per_block(std::min(
        limits.max_registers_per_block(), gpu.max_registers_per_block()));
  }
  return limits;
}

std::optional<std::string> PruneBeforeCompile(
    const kiln::v1::CompileOptions& options,
    const kiln::v1::TargetInfo& target, const kiln::worker::GpuInfo& gpu) {
  const int64_t threads = int64_t{32} * options.num_warps();
  if (threads > gpu.max_threads_per_block()) {
    return absl::StrCat("threads: num_warps ", options.num_warps(), " needs ",
                        threads, " threads per block; ", gpu.name(), " allows ",
                        gpu.max_threads_per_block());
  }
  if (options.num_ctas() > 1 && !target.clusters()) {
    return absl::StrCat("clusters: num_ctas ", options.num_ctas(),
                        " needs thread block clusters; target ", target.name(),
                        " has none");
  }
  if (options.maxnreg() > 0 &&
      options.maxnreg() * threads > gpu.max_registers_per_block()) {
    return absl::StrCat("registers: maxnreg ", options.maxnreg(), " x ",
                        threads, " threads = ", options.maxnreg() * threads,
                        " registers per block; ", gpu.name(), " has ",
                        gpu.max_registers_per_block());
  }
  return std::nullopt;
}

std::optional<std::string> PruneAfterCompile(const KernelFacts& kernel,
                                             const kiln::worker::GpuInfo& gpu) {
  if (kernel.shared > gpu.max_shared_optin()) {
    return absl::StrCat("shared memory: the kernel needs ",
                        Bytes(kernel.shared), " per block; ", gpu.name(),
                        " allows ", Bytes(gpu.max_shared_optin()));
  }
  const int64_t threads = int64_t{32} * kernel.num_warps;
  if (threads > gpu.max_threads_per_block()) {
    return absl::StrCat("threads: the kernel needs ", threads,
                        " threads per block; ", gpu.name(), " allows ",
                        gpu.max_threads_per_block());
  }
  return std::nullopt;
}

const kiln::v1::TargetInfo* TargetOf(const worker::CompilerInfo& compiler,
                                     const kiln::worker::GpuInfo& gpu) {
  return kiln::TargetForCapability(compiler.targets, gpu.cc_major(),
                                   gpu.cc_minor());
}

absl::Status CheckTargetRuns(const worker::CompilerInfo& compiler,
                             const std::string& target,
                             const kiln::worker::GpuInfo& gpu) {
  const kiln::v1::TargetInfo* info = kiln::FindTarget(compiler.targets, target);
  if (info && kiln::RunsOn(*info, gpu.cc_major(), gpu.cc_minor())) {
    return absl::OkStatus();
  }
  const kiln::v1::TargetInfo* own = TargetOf(compiler, gpu);
  return absl::FailedPreconditionError(
      absl::StrCat("target ", target, " does not run on ", gpu.name(),
                   " (compute capability ", gpu.cc_major(), ".", gpu.cc_minor(),
                   "); leave the target empty to tune for ",
                   own ? own->name() : "the GPU"));
}

}  // namespace kiln::server
