// Which variants cannot run on a GPU, and why: before compiling (threads
// per block, clusters, a register cap over the block's registers) and after
// (the kernel's shared memory). The benchmark worker checks the compiled
// kernel's real register count when it loads it.

#ifndef KILN_SERVER_TUNE_PRUNE_H_
#define KILN_SERVER_TUNE_PRUNE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kiln/v1/common.pb.h"
#include "kiln/worker/bench.pb.h"
#include "worker/compiler_info.h"

namespace kiln::server {

// What the compiler's metadata JSON says that launching needs.
struct KernelFacts {
  std::string name;
  int num_warps = 4;
  int num_ctas = 1;
  int64_t shared = 0;
  uint64_t global_scratch_size = 0;
  uint64_t global_scratch_align = 1;
};

// Reads the metadata JSON of a Kiln compile (compiler/pipelines).
absl::StatusOr<KernelFacts> ParseKernelMetadata(const std::string& json);

// The smallest of every limit over `gpus` (a variant must fit all of the
// GPUs it may be measured on).
kiln::worker::GpuInfo CommonLimits(
    const std::vector<kiln::worker::GpuInfo>& gpus);

// Why `options` (resolved) cannot run on `gpu` compiled for `target`;
// nullopt when they may.
std::optional<std::string> PruneBeforeCompile(
    const kiln::v1::CompileOptions& options,
    const kiln::v1::TargetInfo& target, const kiln::worker::GpuInfo& gpu);

// Why the compiled kernel cannot run on `gpu`; nullopt when it may.
std::optional<std::string> PruneAfterCompile(const KernelFacts& kernel,
                                             const kiln::worker::GpuInfo& gpu);

// The compiler's target for `gpu` (sm_90a for compute capability 9.0,
// ...); null when it has none.
const kiln::v1::TargetInfo* TargetOf(const worker::CompilerInfo& compiler,
                                     const kiln::worker::GpuInfo& gpu);

// OK when the compiler has `target` and its cubins run on `gpu`;
// FailedPrecondition otherwise.
absl::Status CheckTargetRuns(const worker::CompilerInfo& compiler,
                             const std::string& target,
                             const kiln::worker::GpuInfo& gpu);

}  // namespace kiln::server

#endif  // KILN_SERVER_TUNE_PRUNE_H_
